/**
 * The scheduled jobs in AWS: one Lambda running the job registry (functions/workers/jobs) and one
 * EventBridge rule per job of shared/jobs/schedule.ts, at its period, passing the job's name and
 * the rule's scheduled time. A new job in the schedule gets its rule here without a change.
 */
import { Duration, Validations } from 'aws-cdk-lib'
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb'
import { EventField, Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events'
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets'
import { Construct } from 'constructs'
import { join } from 'node:path'
import { jobNames, jobSchedule } from '../shared/jobs/schedule.ts'
import { RouteGroupFunction } from './route-group-function.ts'

export interface ScheduledJobsProps {
  readonly table: TableV2
  readonly environment: Record<string, string>
  readonly functionsDir: string
}

const pascal = (name: string) =>
  name
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')

export class ScheduledJobs extends Construct {
  readonly fn: RouteGroupFunction
  readonly rules: ReadonlyMap<string, Rule>

  constructor(scope: Construct, id: string, props: ScheduledJobsProps) {
    super(scope, id)
    // Jobs go through every tenant: minutes, not the seconds of a request.
    this.fn = new RouteGroupFunction(this, 'Function', {
      entry: join(props.functionsDir, 'workers', 'jobs', 'handler.ts'),
      environment: props.environment,
      timeout: Duration.minutes(10),
    })
    this.fn.bindTable(props.table, 'readWrite')
    // Each job takes all that is due when it runs, so a failed run is made good by the next one.
    const nextRun =
      'A failed run is made good by the next run of the same job (each run takes all that is due); failures alarm on the function errors.'
    Validations.of(this).acknowledge({ id: 'Serverless-EventBusDLQ', reason: nextRun })
    Validations.of(this.fn).acknowledge({ id: 'Serverless-LambdaDLQ', reason: nextRun })
    const rules = new Map<string, Rule>()
    for (const job of jobNames) {
      rules.set(
        job,
        new Rule(this, `${pascal(job)}Schedule`, {
          description: `Runs the ${job} job`,
          schedule: Schedule.rate(Duration.minutes(jobSchedule[job].everyMinutes)),
          targets: [
            new LambdaFunction(this.fn, {
              event: RuleTargetInput.fromObject({ job, at: EventField.time }),
              retryAttempts: 2,
            }),
          ],
        }),
      )
    }
    this.rules = rules
  }
}
