import { type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib'
import type { ITable } from 'aws-cdk-lib/aws-dynamodb'
import { Architecture, LoggingFormat, Runtime } from 'aws-cdk-lib/aws-lambda'
import { NodejsFunction, OutputFormat, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs'
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs'
import type { Construct } from 'constructs'
import { bundleAliases, externalsFor, lambdaBundling } from './bundling.ts'
import { grantTable, type TableAccess } from './grants.ts'

export interface RouteGroupFunctionProps {
  /** Path of the handler module (exports `handler`). */
  readonly entry: string
  /** Environment shared by every function (table name, service host, ...). */
  readonly environment: Record<string, string>
  /** @default 1024 */
  readonly memorySize?: number
  /** @default 10 seconds */
  readonly timeout?: Duration
}

/**
 * A Lambda of the product: Node.js 24 on arm64, bundled by esbuild as minified ESM with source
 * maps, the AWS SDK bundled (so its version is ours, not the runtime's) as lib/bundling.ts says,
 * logs kept 30 days in the JSON log format (the platform's own lines, START/END/REPORT and any
 * console call, are JSON objects with the request id, so Logs Insights reads every line by field).
 */
export class RouteGroupFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: RouteGroupFunctionProps) {
    const fnProps: NodejsFunctionProps = {
      entry: props.entry,
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.seconds(10),
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      logGroup: new LogGroup(scope, `${id}Logs`, { retention: RetentionDays.ONE_MONTH }),
      loggingFormat: LoggingFormat.JSON,
      // lib/bundling.ts: the bench builds the very same bundle.
      bundling: {
        format: OutputFormat.ESM,
        minify: lambdaBundling.minify,
        sourceMap: lambdaBundling.sourcemap,
        target: lambdaBundling.target,
        mainFields: [...lambdaBundling.mainFields],
        externalModules: externalsFor(props.entry),
        banner: lambdaBundling.banner,
        esbuildArgs: { '--alias': Object.entries(bundleAliases).map(([from, to]) => `${from}=${to}`) },
      },
    }
    super(scope, id, fnProps)
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason:
        "The AWS managed basic execution role only lets the function write its logs (logs:CreateLogGroup, CreateLogStream, PutLogEvents); narrowing it to the function's own log group is left to the least-privilege work (issue 29, point 3).",
    })
    Validations.of(this).acknowledge({
      id: 'Serverless-LambdaTracing',
      reason:
        'No X-Ray tracing yet: the bundles (kept small, docs/decisions/0013) carry no tracing SDK, and active tracing adds an xray:Put* grant on Resource * to every role; a request is followed by its request id through the JSON logs and the API access log. Tracing is for issue 29, point 2.',
    })
  }

  /** Sets the table's name and the grant together (lib/grants.ts says which actions each access is). */
  bindTable(table: ITable, access: TableAccess): void {
    this.addEnvironment('LMS_TABLE_NAME', table.tableName)
    grantTable(table, this, access)
    const tableId = Stack.of(table).getLogicalId(table.node.defaultChild as CfnElement)
    Validations.of(this).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${tableId}.Arn>/index/*]`,
      reason:
        "The store queries the table's global secondary indexes (shared/store/core/table-schema.ts lists them); the wildcard reaches this table's indexes and no other resource.",
    })
  }
}
