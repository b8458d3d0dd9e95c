/**
 * Outgoing e-mail. SMTP through nodemailer when SMTP_URL is set; otherwise the message is written
 * to the server log (development and the quick start). The log mailer is the only place where a
 * password-reset link (a credential) may ever appear in the log.
 */
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import type { Config } from '../../config.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  readonly kind: 'smtp' | 'log';
  /** Rejects when the message could not be handed over. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export function smtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    kind: 'smtp',
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
    close: () => transport.close(),
  };
}

export function logMailer(log: FastifyBaseLogger): Mailer {
  return {
    kind: 'log',
    async send(message) {
      // `text`, not `html`: one readable copy of the message (and its link) in the log.
      log.info(
        { mailTo: message.to, subject: message.subject, text: message.text },
        'e-mail (not sent: SMTP_URL is not set)',
      );
    },
    close: () => undefined,
  };
}

/** The mailer the configuration asks for; without SMTP says once where the links go. */
export function mailerFor(config: Config, log: FastifyBaseLogger): Mailer {
  if (config.smtpUrl === null) {
    log.warn('SMTP_URL is not set: password-reset links are written to this log');
    return logMailer(log);
  }
  return smtpMailer(config.smtpUrl, config.mailFrom);
}

const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The password-reset e-mail: English, then French; plain text and simple HTML. */
export function passwordResetMail(to: string, link: string, validMinutes: number): MailMessage {
  const text = [
    'Hello,',
    '',
    `Someone (hopefully you) asked to reset the password of your Telerace account. Open this link within ${validMinutes} minutes to choose a new password:`,
    '',
    link,
    '',
    'If you did not ask for this, ignore this e-mail: your password stays the same.',
    '',
    '---',
    '',
    'Bonjour,',
    '',
    `Quelqu’un (vous, espérons-le) a demandé à réinitialiser le mot de passe de votre compte Telerace. Ouvrez ce lien dans les ${validMinutes} minutes pour choisir un nouveau mot de passe :`,
    '',
    link,
    '',
    'Si vous n’avez rien demandé, ignorez ce courriel : votre mot de passe reste inchangé.',
  ].join('\n');
  const href = escapeHtml(link);
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    '<p>Hello,</p>',
    `<p>Someone (hopefully you) asked to reset the password of your Telerace account. Open this link within ${validMinutes} minutes to choose a new password:</p>`,
    `<p><a href="${href}">Reset my password</a></p>`,
    '<p>If you did not ask for this, ignore this e-mail: your password stays the same.</p>',
    '<hr>',
    '<p lang="fr">Bonjour,</p>',
    `<p lang="fr">Quelqu’un (vous, espérons-le) a demandé à réinitialiser le mot de passe de votre compte Telerace. Ouvrez ce lien dans les ${validMinutes} minutes pour choisir un nouveau mot de passe :</p>`,
    `<p lang="fr"><a href="${href}">Réinitialiser mon mot de passe</a></p>`,
    '<p lang="fr">Si vous n’avez rien demandé, ignorez ce courriel : votre mot de passe reste inchangé.</p>',
    '</body></html>',
  ].join('\n');
  return {
    to,
    subject: 'Reset your Telerace password / Réinitialisez votre mot de passe Telerace',
    text,
    html,
  };
}
