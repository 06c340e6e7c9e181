/**
 * Outgoing mail: SMTP through nodemailer when SMTP_URL is set; otherwise each message is written to
 * DATA_DIR/outbox/ as a file named after its ISO timestamp (for local installs and tests).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Needs } from '../context.ts';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../db/private-files.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

const transports = new WeakMap<object, Transporter>();

/** Sends (or files) one message; resolves with where it went, for the log. */
export async function sendMail(ctx: Needs<'config'>, message: MailMessage): Promise<string> {
  const { smtpUrl, mailFrom, dataDir } = ctx.config;
  if (smtpUrl) {
    let transport = transports.get(ctx);
    if (!transport) {
      transport = nodemailer.createTransport(smtpUrl);
      transports.set(ctx, transport);
    }
    await transport.sendMail({ from: mailFrom, ...message });
    return 'smtp';
  }
  const dir = join(dataDir, 'outbox');
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // ':' is not allowed in Windows file names; the name still starts with the ISO timestamp.
  const name = `${new Date().toISOString().replaceAll(':', '-')}-${randomBytes(4).toString('hex')}.txt`;
  const file = join(dir, name);
  const body = [`From: ${mailFrom}`, `To: ${message.to}`, `Subject: ${message.subject}`, '', message.text, ''].join(
    '\n',
  );
  await writeFile(file, body, { mode: PRIVATE_FILE_MODE });
  return file;
}
