import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../../test/app.js';
import { signup } from '../../test/auth.js';
import { passwordResetMail, smtpMailer } from './mailer.js';

interface Received {
  from: string;
  to: string[];
  data: string;
}

/** A real SMTP server on a free local port that keeps what it receives. */
let smtp: SMTPServer;
let smtpUrl: string;
const inbox: Received[] = [];

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => smtp.close(resolve)));

async function waitForMail(count: number): Promise<void> {
  await expect
    .poll(() => inbox.length, { timeout: 10_000, message: 'no mail arrived' })
    .toBeGreaterThanOrEqual(count);
}

/** Quoted-printable soft breaks and escapes undone, enough to read the link back. */
const unQuotedPrintable = (data: string) =>
  data
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

describe('passwordResetMail', () => {
  it('is bilingual, plain text and HTML, with the link in both', () => {
    const mail = passwordResetMail('a@example.com', 'https://t.example/reset-password/abc', 60);
    expect(mail.text).toContain('reset the password');
    expect(mail.text).toContain('réinitialiser le mot de passe');
    expect(mail.text.indexOf('Hello')).toBeLessThan(mail.text.indexOf('Bonjour'));
    expect(mail.text.match(/https:\/\/t\.example\/reset-password\/abc/g)).toHaveLength(2);
    expect(mail.html).toContain('href="https://t.example/reset-password/abc"');
  });
});

describe('smtpMailer', () => {
  it('delivers over SMTP', async () => {
    const mailer = smtpMailer(smtpUrl, 'Telerace <no-reply@telerace.example>');
    const before = inbox.length;
    await mailer.send(passwordResetMail('someone@example.com', 'http://x.example/reset-password/tok', 60));
    mailer.close();
    await waitForMail(before + 1);
    const mail = inbox.at(-1);
    expect(mail?.from).toBe('no-reply@telerace.example');
    expect(mail?.to).toEqual(['someone@example.com']);
  });
});

describe('forgot-password with SMTP_URL', () => {
  let t: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    t = await startTestApp({ SMTP_URL: smtpUrl, PUBLIC_URL: 'https://telerace.example' });
  });
  afterAll(() => t.close());

  it('e-mails the reset link, which works, and keeps it out of the log', async () => {
    const account = await signup(t.app);
    const before = inbox.length;
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/forgot-password',
      payload: { email: account.email },
    });
    expect(response.statusCode).toBe(200);
    await waitForMail(before + 1);
    const mail = inbox.at(-1);
    expect(mail?.to).toEqual([account.email]);
    const token = /https:\/\/telerace\.example\/reset-password\/([A-Za-z0-9_-]{43})/.exec(
      unQuotedPrintable(mail?.data ?? ''),
    )?.[1];
    expect(token).toBeDefined();
    expect(t.logText()).not.toContain(token);
    expect(t.logText()).not.toContain('SMTP_URL is not set');

    const reset = await t.app.inject({
      method: 'POST',
      url: '/api/reset-password',
      payload: { token, newPassword: 'a brand new passphrase' },
    });
    expect(reset.statusCode).toBe(200);
  });
});
