/**
 * Two connects of the record store at once (two operators, a retried CLI call): the connection is
 * saved only over the one its connect read, so the later one decides again from what the earlier
 * left, instead of both deciding from "nothing connected" and the last write silently winning.
 */
import { describe, expect, it } from 'vitest'
import { connect } from '../../shared/services/deliveries/lrs-connection-service.ts'
import { listAudit } from '../../shared/store/tenants/audit-store.ts'
import { getConnection } from '../../shared/store/deliveries/xapi-store.ts'
import { newTenant } from '../helpers/tenants.ts'

describe('Record-store connection: concurrent connects', () => {
  it('race: two first connects at once make one connect and one update of it, never two first connects', async () => {
    // Prepare
    const t = await newTenant()
    const endpoints = ['http://127.0.0.1:9/xapi-a', 'http://127.0.0.1:9/xapi-b']

    // Act
    const made = await Promise.all(
      endpoints.map((endpoint) => connect(t.tenant, { endpoint, key: 'k', secret: 's' }, 'test')),
    )

    // Assess
    const audit = await listAudit(t.tenant)
    expect(audit.map((a) => a.action).sort()).toEqual(['lrs.connect', 'lrs.update'])
    const update = audit.find((a) => a.action === 'lrs.update')
    const saved = await getConnection(t.tenant)
    expect(saved?.endpoint).toBe(update?.details.endpoint)
    expect(made).toContainEqual(saved)
  })
})
