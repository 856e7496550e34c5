/**
 * E-mail in AWS: the notifications worker behind its queue, sending through Amazon SES v2 with a
 * configuration set of the stack's own (the account's suppression list for bounces and
 * complaints). The sender identity (the domain of `mailFrom`, or the address itself) is verified
 * in SES outside the stack (DNS records for DKIM); the worker may send from that identity with
 * that configuration set and nothing else.
 */
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib'
import { PolicyStatement } from 'aws-cdk-lib/aws-iam'
import { ConfigurationSet, SuppressionReasons } from 'aws-cdk-lib/aws-ses'
import type { Construct } from 'constructs'
import { QueueWorker } from './queue-worker.ts'

export const MAIL_CONFIGURATION_SET = 'lms-mail'

export interface MailWorkerProps {
  readonly environment: Record<string, string>
  readonly entry: string
  readonly mailFrom: string
  /** The worker's maximum concurrency (QueueWorkerProps.maxConcurrency). */
  readonly maxConcurrency?: number
}

/** The identity SES checks for `mailFrom`: its domain (a verified domain covers every address of it). */
export const senderIdentity = (mailFrom: string): string => mailFrom.slice(mailFrom.lastIndexOf('@') + 1)

export function addMailWorker(scope: Construct, props: MailWorkerProps) {
  const configurationSet = new ConfigurationSet(scope, 'MailConfigurationSet', {
    configurationSetName: MAIL_CONFIGURATION_SET,
    suppressionReasons: SuppressionReasons.BOUNCES_AND_COMPLAINTS,
  })
  const worker = new QueueWorker(scope, 'notifications', {
    entry: props.entry,
    environment: {
      ...props.environment,
      LMS_MAIL_TRANSPORT: 'ses',
      LMS_MAIL_FROM: props.mailFrom,
      LMS_SES_CONFIGURATION_SET: configurationSet.configurationSetName,
    },
    timeout: Duration.seconds(30),
    ...(props.maxConcurrency === undefined ? {} : { maxConcurrency: props.maxConcurrency }),
  })
  const stack = Stack.of(scope)
  const arn = (resource: string, resourceName: string) =>
    stack.formatArn({ service: 'ses', resource, resourceName, arnFormat: ArnFormat.SLASH_RESOURCE_NAME })
  worker.fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['ses:SendEmail'],
      resources: [
        arn('identity', senderIdentity(props.mailFrom)),
        arn('configuration-set', configurationSet.configurationSetName),
      ],
    }),
  )
  return { worker, configurationSet }
}
