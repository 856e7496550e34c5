/** The transport chosen by config: Amazon SES in AWS, the local sink on the embedded default. */
import { config } from '../config.ts'
import type { MailSender } from '../domain/notifications/mail.ts'
import { sesSender } from './ses-sender.ts'
import { sinkSender } from './sink-sender.ts'

export const mailSender: MailSender = config.mailTransport === 'ses' ? sesSender : sinkSender
