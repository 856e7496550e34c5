import { describe, expect, it } from 'vitest'
import { courseCountsMove } from '../../../shared/domain/courses/course-counts.ts'

describe('courseCountsMove: how a status change moves the course counts', () => {
  it('counts a new draft in the total and among drafts, taking no active slot', () => {
    expect(courseCountsMove(null, 'draft')).toEqual({
      total: 1,
      byStatus: { draft: 1 },
      active: 0,
      takesActiveSlot: false,
    })
  })

  it('takes an active slot on publish', () => {
    expect(courseCountsMove('draft', 'published')).toEqual({
      total: 0,
      byStatus: { draft: -1, published: 1 },
      active: 1,
      takesActiveSlot: true,
    })
  })

  it('frees the active slot when a published course becomes draft or archived', () => {
    expect(courseCountsMove('published', 'draft')).toMatchObject({
      byStatus: { published: -1, draft: 1 },
      active: -1,
      takesActiveSlot: false,
    })
    expect(courseCountsMove('published', 'archived')).toMatchObject({
      byStatus: { published: -1, archived: 1 },
      active: -1,
      takesActiveSlot: false,
    })
  })

  it('moves only the status counts when a draft is archived', () => {
    expect(courseCountsMove('draft', 'archived')).toEqual({
      total: 0,
      byStatus: { draft: -1, archived: 1 },
      active: 0,
      takesActiveSlot: false,
    })
  })

  it('moves nothing, and never takes a slot, when the status stays (re-publishing included)', () => {
    for (const status of ['draft', 'published', 'archived'] as const) {
      expect(courseCountsMove(status, status)).toEqual({
        total: 0,
        byStatus: {},
        active: 0,
        takesActiveSlot: false,
      })
    }
  })
})
