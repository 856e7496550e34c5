/**
 * The migrations' Lambda (functions/workers/migrations): invoked by the operator, never on a
 * schedule, so that a migration runs when its release is fully deployed (docs/decisions/0033).
 * It may read and write the table as the store does and, alone of every function, Scan the table
 * itself (not its indexes): a migration is the one reader of every item.
 */
import { Duration, Validations } from 'aws-cdk-lib'
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb'
import { Construct } from 'constructs'
import { join } from 'node:path'
import { grantTableScan } from './grants.ts'
import { RouteGroupFunction } from './route-group-function.ts'

export interface MigrationsFunctionProps {
  readonly table: TableV2
  readonly environment: Record<string, string>
  readonly functionsDir: string
  /** The capacity budgets (units per second, 0: none): how much of the table a backfill may take. */
  readonly maxRcuPerSecond?: number
  readonly maxWcuPerSecond?: number
}

export class MigrationsFunction extends Construct {
  readonly fn: RouteGroupFunction

  constructor(scope: Construct, id: string, props: MigrationsFunctionProps) {
    super(scope, id)
    // Lambda's longest: each invocation does as many pages as fit and says whether more remains.
    this.fn = new RouteGroupFunction(this, 'Function', {
      entry: join(props.functionsDir, 'workers', 'migrations', 'handler.ts'),
      environment: {
        ...props.environment,
        LMS_MIGRATION_MAX_RCU_PER_SECOND: String(props.maxRcuPerSecond ?? 200),
        LMS_MIGRATION_MAX_WCU_PER_SECOND: String(props.maxWcuPerSecond ?? 100),
      },
      timeout: Duration.minutes(15),
    })
    this.fn.bindTable(props.table, 'readWrite')
    grantTableScan(props.table, this.fn)
    Validations.of(this.fn).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'Invoked synchronously by the operator, who reads its answer (or its error) and invokes it again; the saved cursor makes the next invocation resume.',
    })
  }
}
