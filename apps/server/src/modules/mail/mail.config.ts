/** Settings of outgoing e-mail (password-reset links). */
import { z } from 'zod';
import { defineSection, setting } from '../../config/define.js';
import { urlOf } from '../../config/schemas.js';

export const mailConfig = defineSection({
  smtpUrl: setting({
    env: 'SMTP_URL',
    schema: urlOf(['smtp', 'smtps'], 'an'),
    default: null,
    doc: 'SMTP server for e-mails (password reset), e.g. `smtp://user:pass@mail.example:587` or `smtps://…`. Unset: reset links are written to the server log.',
    secret: true,
  }),
  mailFrom: setting({
    env: 'MAIL_FROM',
    schema: z.string(),
    default: 'Telerace <no-reply@localhost>',
    doc: 'Sender address of the e-mails.',
    // A display name may hold " #" (`Race team #1 <…>`).
    freeText: true,
  }),
});
