/**
 * Headless Chromium or Chrome (the one the test setup found: find-chromium.ts) driven over the Chrome DevTools Protocol, with nothing
 * but Node's own WebSocket: enough to open a page, let its forms submit themselves and its
 * redirects and cookies run as in a browser, and read what the page shows.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inject } from 'vitest'
import { until } from './until.ts'

export interface Browser {
  /** Opens `url` in a fresh tab and returns a reader of that tab. */
  open(url: string): Promise<Tab>
  close(): Promise<void>
}

export interface Tab {
  /** Evaluates `expression` in the page and returns its value. */
  evaluate<T>(expression: string): Promise<T>
  /** Waits until the page's location and an element's text satisfy `ready`. */
  waitFor(selector: string, timeoutMs?: number): Promise<{ url: string; text: string }>
  /** Presses Enter as a keyboard does (a trusted event: it activates the focused button). */
  pressEnter(): Promise<void>
}

export async function launchChromium(chromiumPath = inject('chromePath')): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'lms-chromium-'))
  const child: ChildProcess = spawn(
    chromiumPath,
    [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  const wsUrl = await new Promise<string>((resolve, reject) => {
    let err = ''
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString()
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err)
      if (m?.[1]) resolve(m[1])
    })
    child.once('exit', (code) =>
      reject(new Error(`chromium exited (${code}) before listening: ${err.slice(0, 500)}`)),
    )
    // A missing binary emits 'error' and never 'exit': without this the test waits out its timeout.
    child.once('error', (e) =>
      reject(
        new Error(`cannot start ${chromiumPath} (found by the test setup, find-chromium.ts): ${e.message}`),
      ),
    )
  })
  const ws = new WebSocket(wsUrl)
  await new Promise((resolve, reject) => {
    ws.onopen = resolve
    ws.onerror = reject
  })
  let seq = 0
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()
  ws.onmessage = (m: MessageEvent) => {
    const msg = JSON.parse(String(m.data)) as { id?: number; result?: unknown; error?: { message: string } }
    if (msg.id === undefined) return
    const p = pending.get(msg.id)
    pending.delete(msg.id)
    if (msg.error) p?.reject(new Error(msg.error.message))
    else p?.resolve(msg.result)
  }
  const send = <T>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> => {
    const id = ++seq
    ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }))
    return new Promise<T>((resolve, reject) =>
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject }),
    )
  }

  return {
    async open(url) {
      const { targetId } = await send<{ targetId: string }>('Target.createTarget', { url })
      const { sessionId } = await send<{ sessionId: string }>('Target.attachToTarget', {
        targetId,
        flatten: true,
      })
      const evaluate = async <T>(expression: string): Promise<T> => {
        const r = await send<{ result: { value: T } }>(
          'Runtime.evaluate',
          { expression, returnByValue: true },
          sessionId,
        )
        return r.result.value
      }
      return {
        evaluate,
        async pressEnter() {
          const key = { key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13 }
          await send('Input.dispatchKeyEvent', { type: 'keyDown', text: '\r', ...key }, sessionId)
          await send('Input.dispatchKeyEvent', { type: 'keyUp', ...key }, sessionId)
        },
        waitFor: (selector, timeoutMs = 60_000) =>
          until(
            async () => {
              try {
                return await evaluate<{ url: string; text: string } | null>(
                  `(() => { const e = document.querySelector(${JSON.stringify(selector)}); return e ? { url: location.href, text: e.textContent } : null })()`,
                )
              } catch {
                return null // navigating: the context is being replaced
              }
            },
            (r) => r !== null,
            timeoutMs,
          ).then((r) => {
            if (!r) throw new Error(`${selector} did not appear`)
            return r
          }),
      }
    },
    async close() {
      ws.close()
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
