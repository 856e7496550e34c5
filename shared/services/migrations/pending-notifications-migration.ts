/** `2026-11-pending-notifications`: notifications left in the old `OUTBOX#PENDING#MAIL` index join the one pending index (decision 0028). */
import {
  legacyPendingNotificationFilter,
  moveLegacyPendingNotification,
  outboxOfTenant,
} from '../../store/outbox/outbox-store.ts'
import { scanMigration } from './scan-migration.ts'

export const pendingNotificationsMigration = scanMigration({
  id: '2026-11-pending-notifications',
  description:
    'Notifications still waiting in the old pending partition OUTBOX#PENDING#MAIL move into the one pending index, where the sweep relays them (decision 0028)',
  filter: legacyPendingNotificationFilter,
  ofTenant: outboxOfTenant,
  apply: async (item) =>
    (await moveLegacyPendingNotification({ pk: String(item.pk), sk: String(item.sk) }))
      ? 'changed'
      : 'unchanged',
})
