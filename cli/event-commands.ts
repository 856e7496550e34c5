/** `lms events list`: the events API's list (decision 0044), through the same service. */
import { ListEventsFilters } from '../shared/domain/webhooks/event-list.ts'
import { parseOrThrow } from '../shared/domain/validation.ts'
import { paging } from '../shared/http/list-query.ts'
import * as events from '../shared/services/outbox/events-service.ts'
import { tenantOf, command, type Command } from './flags.ts'

export const eventCommands: Record<string, Command> = {
  'events list': command(
    '--tenant S [--type T[,T2]] [--page N]',
    'the tenant’s webhook events of the last 30 days, newest first, 50 a page (as GET /api/v1/events)',
    async (f) => {
      const filters = parseOrThrow(ListEventsFilters, { type: f.get('type') })
      const page = paging({ page: f.get('page') })
      const { items } = await events.listEvents(await tenantOf(f), {
        ...(filters.type === undefined ? {} : { types: filters.type }),
        offset: page.offset,
        limit: page.perPage,
      })
      return { data: items }
    },
  ),
}
