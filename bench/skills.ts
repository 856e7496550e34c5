/**
 * `npx tsx bench/skills.ts`: the team matrix on a Growth tenant of 10,000 people and 200 skills
 * (20 roles of 20 required skills, one role and five held levels a person), in DynamoDB Local: a
 * page of 50 people by 40 skills, and a status-filtered matrix over the whole population. Prints
 * the DynamoDB calls by operation, the capacity DynamoDB Local reports, and the handler time.
 *
 * `npx tsx bench/skills.ts [people] [--data DIR]`: a smaller population to try things out; with
 * `--data` the seeded table is kept in DIR and reused by the next run with the same DIR (seeding
 * 10,000 people takes minutes). A table kept before the skills summaries existed (0032) gets them
 * from the backfill first, which is timed and reported.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startBenchStores } from './bench-stores.ts'
import { figuresOf, recordSection } from './results-file.ts'

const args = process.argv.slice(2)
const dataFlag = args.indexOf('--data')
const DATA_DIR = dataFlag >= 0 ? args[dataFlag + 1] : undefined
const positional = args.filter((_, i) => dataFlag < 0 || (i !== dataFlag && i !== dataFlag + 1))
const PEOPLE = Number(positional[0] ?? 10_000)
const SKILLS = 200
const ROLES = 20
const RUNS = 5
/** Room for a request DynamoDB Local serves slowly (the Lambda itself has 10 s on DynamoDB). */
const LONG_DEADLINE_MS = 600_000

async function main(): Promise<void> {
  const stores = await startBenchStores({ LMS_TENANT_CACHE_MS: '5000' }, DATA_DIR)
  try {
    const { createApiKey, createTenant, updateTenant } =
      await import('../shared/services/tenants/tenants-service.ts')
    const { seedUsers } = await import('../shared/store/users/users-store.ts')
    const { makeUsers } = await import('./seed.ts')
    const { createDomain, createSkill } = await import('../shared/services/skills/skills-service.ts')
    const { createJobRole } = await import('../shared/services/skills/job-roles-service.ts')
    const { seedHoldings } = await import('../shared/store/skills/job-roles-store.ts')
    const { seedHeldSkills } = await import('../shared/store/skills/skills-store.ts')
    const { skillLevels } = await import('../shared/domain/skills/skill.ts')
    const { handler } = await import('../functions/skills/handler.ts')
    const { invoke, expectOk } = await import('./invoke.ts')
    const { costOf } = await import('./call-summary.ts')

    const t0 = performance.now()
    const phase = (what: string) =>
      process.stderr.write(`bench/skills: ${what} (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`)
    const seed = async (): Promise<{ slug: string; key: string }> => {
      phase(`seeding ${PEOPLE} people`)
      const tenant = await createTenant({
        slug: `skills-${Date.now().toString(36)}`,
        plan: 'growth',
        name: 'Skills',
      })
      await updateTenant(tenant.slug, { skillsPlanning: true })
      const key = (await createApiKey(tenant, ['read'])).key
      const people = makeUsers(PEOPLE).map((u) => ({ ...u, isActive: true }))
      await seedUsers(tenant, people, 16)
      phase('users seeded')
      const domains = await Promise.all(
        Array.from({ length: 10 }, (_, i) => createDomain(tenant, { name: `Domain ${i}`, nameFr: null })),
      )
      const skills: Awaited<ReturnType<typeof createSkill>>[] = []
      for (let i = 0; i < SKILLS; i++) {
        skills.push(
          await createSkill(tenant, {
            domainId: domains[i % domains.length]?.id ?? '',
            name: `Skill ${String(i).padStart(3, '0')}`,
            nameFr: null,
            isActive: true,
            isCritical: i % 10 === 0,
          }),
        )
      }
      const roles: Awaited<ReturnType<typeof createJobRole>>[] = []
      for (let r = 0; r < ROLES; r++) {
        const required = Array.from({ length: 20 }, (_, j) => ({
          skill_id: skills[(r * 7 + j) % SKILLS]?.id ?? '',
          required_level: skillLevels[(r + j) % 4] ?? 'awareness',
        }))
        roles.push(await createJobRole(tenant, { name: `Role ${r}`, required_skills: required }))
      }
      phase('skills and roles created')
      const at = new Date().toISOString()
      await seedHoldings(
        tenant,
        people.map((u, i) => ({
          userId: u.id,
          jobRoleId: roles[i % ROLES]?.id ?? '',
          sources: ['import' as const],
          version: 1,
        })),
      )
      await seedHeldSkills(
        tenant,
        people.flatMap((u, i) =>
          Array.from({ length: 5 }, (_, j) => ({
            userId: u.id,
            skillId: skills[((i % ROLES) * 7 + j * 3) % SKILLS]?.id ?? '',
            level: skillLevels[(i + j) % 4] ?? 'awareness',
            source: 'assessment' as const,
            earnedAt: at,
            validUntil: null,
            pendingClaimLevel: null,
            updatedAt: at,
          })),
        ),
      )
      phase('holdings and held skills seeded')
      return { slug: tenant.slug, key }
    }
    const kept = DATA_DIR ? join(DATA_DIR, 'skills-bench.json') : undefined
    const fixture =
      kept && existsSync(kept)
        ? (JSON.parse(readFileSync(kept, 'utf8')) as {
            slug: string
            key: string
            people: number
            summaries?: boolean
          })
        : undefined
    if (fixture && fixture.people !== PEOPLE) {
      throw new Error(`${kept ?? ''} holds ${fixture.people} people, not ${PEOPLE}: use another --data`)
    }
    const { slug, key } = fixture ?? (await seed())
    let backfill: { people: number; written: number; ms: number } | undefined
    if (fixture && !fixture.summaries) {
      phase('backfilling the skills summaries of a table seeded before them')
      const { backfillSkillSummaries } = await import('../shared/services/skills/skill-summaries-service.ts')
      const { getTenantBySlug } = await import('../shared/store/tenants/tenants-store.ts')
      const tenant = await getTenantBySlug(slug)
      if (!tenant) throw new Error(`${kept ?? ''} names tenant ${slug}, which the table does not hold`)
      const started = performance.now()
      backfill = { ...(await backfillSkillSummaries(tenant)), ms: Math.round(performance.now() - started) }
      phase(`backfill: ${JSON.stringify(backfill)}`)
    }
    if (kept) writeFileSync(kept, JSON.stringify({ slug, key, people: PEOPLE, summaries: true }))
    const { config } = await import('../shared/config.ts')
    const host = `${slug}.${config.serviceHost}`
    const scenarios = [
      {
        name: 'page',
        label: 'matrix page, 50 people × 40 skills',
        url: '/api/v1/skills/matrix?per_page=50',
        runs: RUNS,
      },
      {
        name: 'status',
        label: `matrix with status=below_2,below_1 over ${PEOPLE} people`,
        url: '/api/v1/skills/matrix?per_page=50&status=below_2,below_1',
        runs: 3,
      },
    ]
    const out = []
    for (const s of scenarios) {
      const times: number[] = []
      let last
      for (let i = 0; i < s.runs; i++) {
        const req = { method: 'GET', url: s.url, host, apiKey: key }
        // DynamoDB Local on a shared machine is far slower than DynamoDB: the request is given
        // room to finish, and whether it fit in the local 29 s is reported beside its time.
        const inv = await invoke(handler, req, LONG_DEADLINE_MS)
        phase(`${s.label}: ${inv.result.statusCode} in ${Math.round(inv.ms)} ms`)
        expectOk(req, inv.result)
        times.push(inv.ms)
        last = inv
      }
      if (!last) continue
      const calls = last.calls
      const totals = costOf(calls)
      const byOp = [...new Set(calls.map((c) => c.op))].map((op) => ({
        op,
        ...costOf(calls.filter((c) => c.op === op)),
      }))
      const meta = (JSON.parse(last.result.body ?? '{}') as { meta: Record<string, unknown> }).meta
      const median = Math.round([...times].sort((a, b) => a - b)[Math.floor(s.runs / 2)] ?? 0)
      out.push({
        name: s.name,
        rows: meta.total as number,
        columns: (meta.columns as unknown[]).length,
        populationTruncated: meta.population_truncated as boolean,
        calls: totals.calls,
        rcu: totals.rcu,
        wcu: totals.wcu,
        byOp,
        handlerMsMedian: median,
        withinLocal29s: median < 29_000,
      })
    }
    const results = { people: PEOPLE, skills: SKILLS, roles: ROLES, out }
    process.stdout.write(`${JSON.stringify(backfill ? { ...results, backfill } : results, null, 2)}\n`)
    if (PEOPLE === 10_000) process.stdout.write(`${await recordSection('skills', figuresOf(results))}\n`)
  } finally {
    await stores.stop()
  }
}

await main()
