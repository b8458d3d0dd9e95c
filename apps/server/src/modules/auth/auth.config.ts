/** Settings of accounts and sessions: token signing, the bot check, sign-up limits, seeded accounts. */
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@telerace/protocol';
import { z } from 'zod';
import { configError, defineSection, setting } from '../../config/define.js';
import { JWT_SECRET_MIN_LENGTH, loadOrCreateJwtSecret } from '../../config/jwt-secret.js';
import { boolean, httpUrl, integerBetween, positiveInteger } from '../../config/schemas.js';

const PASSWORD_LENGTH = `must be ${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters long`;

export const authConfig = defineSection(
  {
    jwtSecret: setting({
      env: 'JWT_SECRET',
      schema: z
        .string()
        .min(JWT_SECRET_MIN_LENGTH, `must be at least ${JWT_SECRET_MIN_LENGTH} characters long`),
      default: null,
      defaultDoc: '(generated)',
      doc: 'Secret that signs session tokens, at least 32 characters. Unset: 48 random bytes are generated once and kept in `DATA_DIR/jwt-secret` (mode 0600), so restarts keep sessions.',
      secret: true,
    }),
    accessTokenTtlSeconds: setting({
      env: 'ACCESS_TOKEN_TTL_SECONDS',
      schema: integerBetween(10, 900),
      default: '900',
      doc: 'Lifetime of an access token in seconds (10–900). The web app refreshes it silently with the refresh cookie.',
    }),
    signupRateLimitPerHour: setting({
      env: 'SIGNUP_RATE_LIMIT_PER_HOUR',
      schema: positiveInteger(),
      default: '10',
      doc: 'Sign-ups per client IP and hour (raise it for an event where many people share one address).',
    }),
    recaptchaSiteKey: setting({
      env: 'RECAPTCHA_SITE_KEY',
      schema: z.string(),
      default: null,
      doc: 'reCAPTCHA site key given to the web app for the sign-up and login bot check.',
    }),
    recaptchaSecret: setting({
      env: 'RECAPTCHA_SECRET',
      schema: z.string(),
      default: null,
      doc: 'reCAPTCHA secret key: sign-up and login tokens are verified with Google. Unset: the bot check is disabled (logged at start-up).',
      secret: true,
    }),
    recaptchaVerifyUrl: setting({
      env: 'RECAPTCHA_VERIFY_URL',
      schema: httpUrl(),
      default: 'https://www.google.com/recaptcha/api/siteverify',
      doc: 'Where reCAPTCHA tokens are verified (a compatible service or a test double).',
    }),
    adminEmail: setting({
      env: 'ADMIN_EMAIL',
      schema: z.email('must be an e-mail address'),
      default: null,
      doc: 'With `ADMIN_PASSWORD`: creates the first admin at start-up, only while no admin exists (an account already holding the address is promoted only if `ADMIN_PASSWORD` is its password). Once an admin exists it changes nothing. See docs/accounts.md.',
    }),
    adminPassword: setting({
      env: 'ADMIN_PASSWORD',
      schema: z.string().min(PASSWORD_MIN_LENGTH, PASSWORD_LENGTH).max(PASSWORD_MAX_LENGTH, PASSWORD_LENGTH),
      default: null,
      doc: 'Password of the first admin when it is created, or the proof that the account holding `ADMIN_EMAIL` is the operator (8–128 characters). Never logged, never changed on an existing account.',
      secret: true,
      // A passphrase may hold " #".
      freeText: true,
    }),
    demoAccounts: setting({
      env: 'DEMO_ACCOUNTS',
      schema: boolean(),
      default: 'false',
      doc: 'Set to `true` to create a demo admin and a demo driver whose generated passwords are kept in `DATA_DIR/demo-accounts.json` and printed at every start (the quick start does this). Never on a public server.',
    }),
  },
  ({ jwtSecret, adminEmail, adminPassword, ...values }, core: { dataDir: string }, options) => {
    if ((adminEmail === null) !== (adminPassword === null)) {
      throw configError('ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
    }
    return {
      ...values,
      jwtSecret: jwtSecret ?? loadOrCreateJwtSecret(core.dataDir, options),
      admin:
        adminEmail !== null && adminPassword !== null
          ? { email: adminEmail.toLowerCase(), password: adminPassword }
          : null,
    };
  },
);
