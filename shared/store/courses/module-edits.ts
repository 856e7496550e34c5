/**
 * Module edits: a text edit of one module item, and the rewrite of a course's module places after
 * a delete or a reorder. Module items are keyed by their place (`MODULE#<c>#<order index>`), so a
 * move is a Put of the module at its new place over the item that held it, conditioned on that
 * item still being the module read; the course's `module_count` and the rule "no moves while a
 * published course has enrollments" are conditions on the course item in the same transaction.
 */
import type { Module } from '../../domain/courses/module.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { cond, conditionExpression, updateExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { commit, writeOrRefuse, type Step } from '../core/transaction.ts'
import { updateItem } from '../core/db.ts'
import { moduleEntity } from './courses-store.ts'
import { packageSizeSteps, type StorageRefusal } from '../files/storage-store.ts'

/**
 * `stale`: a module moved or changed since the read (read again); `course`: the course's module
 * count changed, or it is archived, or published with enrollments (read the course again to tell).
 */
export type ModuleMoveRefusal = 'stale' | 'course'

const holds = (m: Module) => cond.eq('id', m.id)

export function updateModuleParams(tenant: TenantContext, before: Module, after: Module) {
  const change = moduleEntity.changeOf(before, after, ['title', 'description'])
  return {
    Key: keys.module(tenant, before.courseId, before.orderIndex),
    ...updateExpression(change, holds(before)),
  }
}

/** @throws WriteRefused<'stale'> when the item at that place is no longer this module */
export async function updateModule(tenant: TenantContext, before: Module, after: Module): Promise<void> {
  await writeOrRefuse(updateItem(updateModuleParams(tenant, before, after)), 'stale')
}

/**
 * From `before` (every module of the course, as read, in order) to `after` (the same modules but
 * one, or all of them reordered, placed 0..n-1): Puts where the module at a place changes, Deletes
 * of the places left empty, and the course's count and rule.
 */
export function moveModulesSteps(
  tenant: TenantContext,
  before: readonly Module[],
  after: readonly Module[],
): Step<ModuleMoveRefusal>[] {
  const courseId = before[0]?.courseId
  if (courseId === undefined) return []
  const movable = cond.and(
    cond.eq('module_count', before.length),
    cond.ne('status', 'archived'),
    cond.or(cond.ne('status', 'published'), cond.eq('enrollment_count', 0)),
  )
  const Key = keys.course(tenant, courseId)
  const courseStep: Step<ModuleMoveRefusal> = {
    item:
      after.length === before.length
        ? { ConditionCheck: { Key, ...conditionExpression(movable) } }
        : { Update: { Key, ...updateExpression({ set: { module_count: after.length } }, movable) } },
    refusal: 'course',
  }
  const moves = before.flatMap((held, place): Step<ModuleMoveRefusal>[] => {
    const next = after[place]
    if (next === undefined)
      return [
        {
          item: {
            Delete: { Key: keys.module(tenant, courseId, place), ...conditionExpression(holds(held)) },
          },
          refusal: 'stale',
        },
      ]
    if (next.id === held.id) return []
    return [
      {
        item: { Put: { Item: moduleEntity.item(tenant, next), ...conditionExpression(holds(held)) } },
        refusal: 'stale',
      },
    ]
  })
  return [courseStep, ...moves]
}

/** A deleted module's stored package, as read: its room under the storage cap goes back with the delete. */
export interface ReleasedPackage {
  readonly moduleId: string
  readonly bytes: number
  readonly at: string
}

/** @throws WriteRefused<ModuleMoveRefusal> (`stale` too when the package changed since the read) */
export async function moveModules(
  tenant: TenantContext,
  before: readonly Module[],
  after: readonly Module[],
  released?: ReleasedPackage,
): Promise<void> {
  const release: Step<ModuleMoveRefusal | StorageRefusal>[] = released
    ? packageSizeSteps(tenant, { ...released, before: released.bytes, after: undefined, capBytes: null })
    : []
  await commit([...moveModulesSteps(tenant, before, after), ...release])
}
