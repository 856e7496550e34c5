/**
 * The cdk-nag packs the app is checked with (issue 29, point 4): AWS Solutions and Serverless.
 * bin/app.ts registers them as validation plugins, so `cdk synth` fails on a finding nobody has
 * acknowledged; test/unit/infra/nag.test.ts runs them on the stack directly. Each acknowledgement
 * (`Validations.of(construct).acknowledge({ id, reason })`) sits beside the construct it excuses.
 */
import type { PolicyValidationPluginReport } from 'aws-cdk-lib'
import { AwsSolutionsChecks, ServerlessChecks, type NagPack } from 'cdk-nag'
import type { IConstruct } from 'constructs'

/** A new instance of each pack (a pack keeps the findings of its last run). */
export function nagPacks(): NagPack[] {
  return [new AwsSolutionsChecks(), new ServerlessChecks()]
}

export interface NagFinding {
  readonly rule: string
  readonly severity: string
  readonly path: string
}

/**
 * Every finding of the packs on `scope` that no acknowledgement covers.
 *
 * @example
 * expect(unacknowledgedFindings(stack)).toEqual([])
 */
export function unacknowledgedFindings(scope: IConstruct): NagFinding[] {
  return nagPacks().flatMap((pack) => findingsOf(pack.validateScope(scope)))
}

function findingsOf(report: PolicyValidationPluginReport): NagFinding[] {
  return report.violations.flatMap((v) =>
    v.violatingResources.map((r) => ({
      rule: v.ruleName,
      severity: v.severity ?? '',
      path: r.constructPath ?? '',
    })),
  )
}
