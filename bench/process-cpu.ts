/**
 * CPU time spent by this process and its children (DynamoDB Local's Java process) over a bench
 * section: unlike wall-clock latency it hardly depends on what else loads the machine, so it
 * shows whether a change made the pipeline cheaper even when the machine is too busy to show it
 * faster. Linux only (/proc); elsewhere the children count as zero.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

/** Clock ticks a second of /proc/<pid>/stat (USER_HZ: 100 on every Linux the stack runs on). */
const TICKS_PER_SECOND = 100

function childrenCpuMs(): number {
  let pids: number[]
  try {
    pids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0)
  } catch {
    return 0
  }
  let ticks = 0
  for (const pid of pids) {
    try {
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // A child that ended meanwhile.
    }
  }
  return (ticks * 1000) / TICKS_PER_SECOND
}

export interface CpuSpent {
  readonly ownMs: number
  readonly childrenMs: number
}

/** @returns a function giving the CPU spent since this call */
export function cpuSince(): () => CpuSpent {
  const own = process.cpuUsage()
  const children = childrenCpuMs()
  return () => {
    const d = process.cpuUsage(own)
    return { ownMs: (d.user + d.system) / 1000, childrenMs: childrenCpuMs() - children }
  }
}
