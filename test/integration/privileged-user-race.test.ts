/**
 * A write-scope change is decided on the role the service read; the write must hold only while the
 * stored role is still that one. The promotion below lands between the read and the write, with
 * the same updated_at (the same millisecond, or an operator's explicit --at), so only a condition
 * on the role itself can catch it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { operator, type Actor } from '../../shared/domain/actor.ts'
import { ScopeMissingError } from '../../shared/domain/errors.ts'
import { createUser, getUser, updateUser } from '../../shared/services/users/users-service.ts'
import { beforeNextTransaction } from '../helpers/dynamodb-calls.ts'
import { newTenant, userBody } from '../helpers/tenants.ts'

const writer: Actor = { scopes: new Set(['read', 'write']) }

let unwrap: (() => void) | undefined

afterEach(() => {
  unwrap?.()
})

describe('Rule: a write key cannot change a privileged user', () => {
  it('refuses a write-scope deactivation when the user became an admin between the read and the write (race)', async () => {
    // Prepare
    const t = await newTenant()
    const learner = await createUser(t.tenant, userBody() as Parameters<typeof createUser>[1], operator)
    let promoted = false
    // The first write is the writer's, decided on the role it read: an admin promotes first.
    unwrap = beforeNextTransaction(async () => {
      promoted = true
      await updateUser(t.tenant, learner.id, { role: 'admin' }, operator, learner.updatedAt)
    })

    // Act
    const attack = updateUser(t.tenant, learner.id, { is_active: false, first_name: 'Mallory' }, writer)

    // Assess
    await expect(attack).rejects.toBeInstanceOf(ScopeMissingError)
    unwrap?.()
    expect(promoted).toBe(true)
    expect(await getUser(t.tenant, learner.id)).toMatchObject({
      role: 'admin',
      isActive: true,
      firstName: learner.firstName,
    })
  })
})
