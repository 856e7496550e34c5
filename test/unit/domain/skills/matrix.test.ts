import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import {
  byLastName,
  MatrixQuery,
  MATRIX_STATUS_SCAN,
  populationPlan,
  statusScanWindow,
} from '../../../../shared/domain/skills/matrix.ts'

describe('the status filter’s population scan', () => {
  it('looks at the first 10,000 people and says when more were left out', () => {
    const people = Array.from({ length: MATRIX_STATUS_SCAN + 1 }, (_, i) => i)
    const over = statusScanWindow(people)
    expect(over.scanned).toHaveLength(10_000)
    expect(over.scanned.at(-1)).toBe(9_999)
    expect(over.truncated).toBe(true)
    expect(statusScanWindow(people.slice(0, 10_000)).truncated).toBe(false)
  })
})

describe('the matrix query', () => {
  it('reads comma lists (the gateway joins repeated parameters with commas), trimming and de-duplicating', () => {
    const id = '0b7c8a3e-9a55-4c1e-8f0a-0f1d2c3b4a59'
    const q = v.parse(MatrixQuery, { status: 'meets, below_1,,meets', skill_id: `${id},${id}` })
    expect(q.status).toEqual(['meets', 'below_1'])
    expect(q.skill_id).toEqual([id])
    expect(q.locale).toBe('en')
  })
})

describe('where the matrix reads its people from', () => {
  it('reads only the page from the users-by-last-name index when nothing filters people', () => {
    expect(populationPlan({})).toBe('page')
  })

  it('reads the members and holders when a group or role filter names them', () => {
    expect(populationPlan({ group_id: ['g'] })).toBe('listed')
    expect(populationPlan({ job_role_id: ['r'], status: ['meets'], search: 'x' })).toBe('listed')
  })

  it('looks at everyone for a name search or a status filter', () => {
    expect(populationPlan({ search: 'al' })).toBe('everyone')
    expect(populationPlan({ status: ['below_1'] })).toBe('everyone')
  })

  it('orders rows as the users-by-last-name index does: last name ignoring case, then id', () => {
    const people = [
      { lastName: 'ab', id: '2' },
      { lastName: 'Ab c', id: '1' },
      { lastName: 'AB', id: '1' },
      { lastName: 'Aa', id: '9' },
    ]
    const indexKey = (p: { lastName: string; id: string }) => `${p.lastName.toLowerCase()}#${p.id}`
    const sorted = [...people].sort(byLastName)
    expect(sorted.map(indexKey)).toEqual(people.map(indexKey).sort())
    expect(sorted.map((p) => p.lastName)).toEqual(['Aa', 'Ab c', 'AB', 'ab'])
  })
})
