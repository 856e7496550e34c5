import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { MatrixQuery, MATRIX_STATUS_SCAN, statusScanWindow } from '../../../../shared/domain/skills/matrix.ts'

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
