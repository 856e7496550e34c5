/** The product's SES v2 client, created once per container (shared/mail/ses-sender.ts sends through it). */
import { SESv2Client } from '@aws-sdk/client-sesv2'
import { clientOptions, mailCall } from './settings.ts'

export const ses = new SESv2Client(clientOptions(mailCall))
