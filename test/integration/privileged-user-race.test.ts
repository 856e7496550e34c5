/**
 * A write-scope change is decided on the role the service read; the write must hold only while the
 * stored role is still that one. The promotion below lands between the read and the write, with
 * the same updated_at (the same millisecond, or an operator's explicit --at), so only a condition
 * on the role itself can catch it.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { operator, type Actor } from '../../shared/domain/actor.ts'
import { ScopeMissingError } from '../../shared/domain/errors.ts'
import { createUser, getUser, updateUser } from '../../shared/services/users-service.ts'
import { doc } from '../../shared/store/clients.ts'
import { newTenant, userBody } from '../helpers/tenants.ts'

const writer: Actor = { scopes: new Set(['read', 'write']) }

afterEach(() => {
  vi.restoreAllMocks()
})

describe('Rule: a write key cannot change a privileged user', () => {
  it('refuses a write-scope deactivation when the user became an admin between the read and the write (race)', async () => {
    // Prepare
    const t = await newTenant()
    const learner = await createUser(t.tenant, userBody() as Parameters<typeof createUser>[1], operator)
    const send = doc.send.bind(doc) as (command: unknown) => Promise<unknown>
    let promoted = false
    // The client's send is overloaded; the stand-in takes and returns what the original does.
    vi.spyOn(doc, 'send').mockImplementation((async (command: unknown) => {
      if (!promoted && command instanceof TransactWriteCommand) {
        // The first write is the writer's, decided on the role it read: an admin promotes first.
        promoted = true
        await updateUser(t.tenant, learner.id, { role: 'admin' }, operator, learner.updatedAt)
      }
      return send(command)
    }) as never)

    // Act
    const attack = updateUser(t.tenant, learner.id, { is_active: false, first_name: 'Mallory' }, writer)

    // Assess
    await expect(attack).rejects.toBeInstanceOf(ScopeMissingError)
    vi.restoreAllMocks()
    expect(promoted).toBe(true)
    expect(await getUser(t.tenant, learner.id)).toMatchObject({
      role: 'admin',
      isActive: true,
      firstName: learner.firstName,
    })
  })
})
