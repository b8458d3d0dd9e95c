/**
 * The server's configuration: every environment variable it reads, documented in CONFIG_DOCS,
 * parsed once with zod. A wrong value throws a ConfigError whose message is one line naming the
 * variable; main.ts prints it and exits, so the process never starts half-configured.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, PublicConfig } from '@telerace/protocol';
import { z } from 'zod';
import { DEFAULT_WEB_DIST_DIR } from './paths.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  port: number;
  host: string;
  /** Absolute. */
  dataDir: string;
  /** null: embedded PGlite under `dataDir/db`. */
  databaseUrl: string | null;
  /** Without a trailing slash. */
  publicUrl: string;
  jwtSecret: string;
  /** Lifetime of an access token (JWT), at most 15 minutes. */
  accessTokenTtlSeconds: number;
  logLevel: LogLevel;
  /**
   * Which peers may set X-Forwarded-For: false (none), a number of proxy hops in front of the
   * server, or the proxies' addresses/CIDRs. Never "every hop" (the client would choose its IP).
   */
  trustProxy: false | number | string[];
  /** Open TCP connections the server accepts at once (node's server.maxConnections). */
  maxConnections: number;
  /** Event and control sockets one client IP may hold at once. */
  socketsPerIp: number;
  /** Minutes a generated control code stays valid. */
  controlCodeTtlMinutes: number;
  /** Requests per client IP and minute on /api. */
  apiRateLimitPerMinute: number;
  /** Sign-ups per client IP and hour. */
  signupRateLimitPerHour: number;
  /** Absolute. */
  webDistDir: string;
  promoVideoUrl: string | null;
  community: { streaming: string | null; video: string | null; chat: string | null };
  recaptchaSiteKey: string | null;
  /** null: the bot check is disabled (logged once at start-up). */
  recaptchaSecret: string | null;
  recaptchaVerifyUrl: string;
  /** null: mails (password-reset links) are written to the log instead of being sent. */
  smtpUrl: string | null;
  mailFrom: string;
  /** Account created or promoted to admin at start-up; both set or neither. */
  admin: { email: string; password: string } | null;
  /** Quick-start demo: ensure a demo admin and a demo driver and print their credentials. */
  demoAccounts: boolean;
  /** Simulated cars provisioned and driven by child agent processes at start-up (0: none). */
  simCars: number;
  /** External Janus WebSocket transport; null: the server runs its own Janus (if installed). */
  janusUrl: string | null;
  /** Streaming-plugin admin key of the external Janus; null with the server's own Janus. */
  janusAdminKey: string | null;
  /** REST base of the external Janus (mountpoints); null with the server's own Janus. */
  janusApiUrl: string | null;
  /** `off`: no live video at all; `auto`: external Janus, else the server's own if installed. */
  video: 'auto' | 'off';
  /** Address the cars send their RTP to (the Janus host as the cars reach it). */
  janusRtpHost: string;
  /** How often the server checks that Janus still has the cars' mountpoints (seconds). */
  janusCheckSeconds: number;
  /** ICE servers given to browsers (empty: none). */
  stunUrls: string[];
  turnUrls: string[];
  /** coturn `static-auth-secret`; set exactly when turnUrls is not empty. */
  turnSecret: string | null;
}

const DEFAULT_STUN_URL = 'stun:stun.l.google.com:19302';

export interface ConfigDoc {
  name: string;
  default: string;
  meaning: string;
}

/** Every variable the server reads. The README's configuration table is written from this list. */
export const CONFIG_DOCS: readonly ConfigDoc[] = [
  { name: 'PORT', default: '8080', meaning: 'TCP port the HTTP server listens on (1–65535).' },
  {
    name: 'HOST',
    default: '127.0.0.1',
    meaning: 'Address to listen on; `0.0.0.0` to accept connections from other machines.',
  },
  {
    name: 'DATA_DIR',
    default: './data',
    meaning:
      'Folder for local state (embedded database under `db/`, generated `jwt-secret`). Relative paths are resolved from the working directory.',
  },
  {
    name: 'DATABASE_URL',
    default: '(unset)',
    meaning:
      'PostgreSQL connection URL (`postgres://` or `postgresql://`). Unset: the embedded PGlite database in `DATA_DIR/db` is used.',
  },
  {
    name: 'PUBLIC_URL',
    default: 'http://localhost:<PORT>',
    meaning:
      'Address users reach the site at, exactly as their browsers show it: the sockets accept only this origin (`Origin` header), and it goes into the Content-Security-Policy; `https://` turns on HSTS and upgrade-insecure-requests.',
  },
  {
    name: 'JWT_SECRET',
    default: '(generated)',
    meaning:
      'Secret that signs session tokens, at least 32 characters. Unset: 48 random bytes are generated once and kept in `DATA_DIR/jwt-secret` (mode 0600), so restarts keep sessions.',
  },
  {
    name: 'ACCESS_TOKEN_TTL_SECONDS',
    default: '900',
    meaning:
      'Lifetime of an access token in seconds (10–900). The web app refreshes it silently with the refresh cookie.',
  },
  { name: 'LOG_LEVEL', default: 'info', meaning: `Log level: ${LOG_LEVELS.join(', ')}.` },
  {
    name: 'API_RATE_LIMIT_PER_MINUTE',
    default: '300',
    meaning:
      'Requests per client IP and minute on `/api` before answering 429 (static files are not limited).',
  },
  {
    name: 'SIGNUP_RATE_LIMIT_PER_HOUR',
    default: '10',
    meaning: 'Sign-ups per client IP and hour (raise it for an event where many people share one address).',
  },
  {
    name: 'TRUST_PROXY',
    default: 'false',
    meaning:
      "Behind a reverse proxy: the number of proxy hops in front of the server (`1` for one nginx), or a comma-separated list of the proxies' addresses or CIDRs, so client IPs (rate limits, login history) come from `X-Forwarded-For`. `true` is refused: it would let clients choose their own address. See docs/security.md.",
  },
  {
    name: 'MAX_CONNECTIONS',
    default: '10000',
    meaning:
      "Open connections (HTTP and sockets) the server accepts at once (100–1000000); keep it under the process's file-descriptor limit (`ulimit -n`).",
  },
  {
    name: 'SOCKETS_PER_IP',
    default: '50',
    meaning:
      'Event and control sockets one client IP may hold at once (1–100000); more are refused with 429. Raise it for an event where many people share one address.',
  },
  {
    name: 'CONTROL_CODE_TTL_MINUTES',
    default: '15',
    meaning:
      'Minutes a generated control code stays valid (1–1440); an admin generates a new one after that. A code also dies after 10 wrong tries on its car.',
  },
  {
    name: 'WEB_DIST_DIR',
    default: 'apps/web/dist',
    meaning: 'Folder of the built web app served by the server (`npm run build` creates it).',
  },
  {
    name: 'PROMO_VIDEO_URL',
    default: '/media/promo.webm',
    meaning:
      'Promo video on the home page: a video file or an embeddable player page (`/…` or `http(s)://…`). Empty: no video.',
  },
  {
    name: 'COMMUNITY_STREAMING_URL',
    default: 'https://www.twitch.tv/telerace',
    meaning: 'Live streaming channel linked from the About page. Empty: no link.',
  },
  {
    name: 'COMMUNITY_VIDEO_URL',
    default: 'https://www.youtube.com/@telerace',
    meaning: 'Video channel linked from the About page. Empty: no link.',
  },
  {
    name: 'COMMUNITY_CHAT_URL',
    default: 'https://discord.gg/telerace',
    meaning: 'Community chat invite linked from the About page. Empty: no link.',
  },
  {
    name: 'RECAPTCHA_SITE_KEY',
    default: '(unset)',
    meaning: 'reCAPTCHA site key given to the web app for the sign-up and login bot check.',
  },
  {
    name: 'RECAPTCHA_SECRET',
    default: '(unset)',
    meaning:
      'reCAPTCHA secret key: sign-up and login tokens are verified with Google. Unset: the bot check is disabled (logged at start-up).',
  },
  {
    name: 'RECAPTCHA_VERIFY_URL',
    default: 'https://www.google.com/recaptcha/api/siteverify',
    meaning: 'Where reCAPTCHA tokens are verified (a compatible service or a test double).',
  },
  {
    name: 'SMTP_URL',
    default: '(unset)',
    meaning:
      'SMTP server for e-mails (password reset), e.g. `smtp://user:pass@mail.example:587` or `smtps://…`. Unset: reset links are written to the server log.',
  },
  {
    name: 'MAIL_FROM',
    default: 'Telerace <no-reply@localhost>',
    meaning: 'Sender address of the e-mails.',
  },
  {
    name: 'ADMIN_EMAIL',
    default: '(unset)',
    meaning:
      'With `ADMIN_PASSWORD`: creates the first admin at start-up, only while no admin exists (an account already holding the address is promoted only if `ADMIN_PASSWORD` is its password). Once an admin exists it changes nothing. See docs/accounts.md.',
  },
  {
    name: 'ADMIN_PASSWORD',
    default: '(unset)',
    meaning:
      'Password of the first admin when it is created, or the proof that the account holding `ADMIN_EMAIL` is the operator (8–128 characters). Never logged, never changed on an existing account.',
  },
  {
    name: 'DEMO_ACCOUNTS',
    default: 'false',
    meaning:
      'Set to `true` to create a demo admin and a demo driver whose generated passwords are kept in `DATA_DIR/demo-accounts.json` and printed at every start (the quick start does this). Never on a public server.',
  },
  {
    name: 'SIM_CARS',
    default: '0',
    meaning:
      'Number of simulated cars (0–20). At start the server ensures cars "Sim 1"…"Sim N" exist (secrets kept in `DATA_DIR/sim-cars.json`, mode 0600), prints a fresh control code for each, and runs their car agents as child processes on the real car socket. The quick start uses 2.',
  },
  {
    name: 'JANUS_URL',
    default: '(unset)',
    meaning:
      'WebSocket transport of an external Janus (`ws://` or `wss://`). Unset: when the `janus` binary is installed the server runs its own, configured under `DATA_DIR/janus/`.',
  },
  {
    name: 'JANUS_ADMIN_KEY',
    default: '(unset)',
    meaning:
      "Streaming plugin `admin_key` of the external Janus (needs `JANUS_URL`), used to create the cars' mountpoints.",
  },
  {
    name: 'JANUS_API_URL',
    default: '(from JANUS_URL)',
    meaning:
      "REST API of the external Janus (`http(s)://…/janus`), used to manage the cars' mountpoints. Default: `JANUS_URL`'s host on port 8088.",
  },
  {
    name: 'JANUS_RTP_HOST',
    default: '127.0.0.1',
    meaning:
      'Address the cars send their camera RTP to (the Janus host as cars reach it). Loopback: mountpoints listen on loopback only; anything else: on every interface.',
  },
  {
    name: 'JANUS_CHECK_SECONDS',
    default: '10',
    meaning:
      "How often (1–300 s) the server checks that Janus still has the cars' mountpoints, and re-creates those it lost (an external Janus restarted).",
  },
  {
    name: 'VIDEO',
    default: 'auto',
    meaning:
      '`auto`: live video through `JANUS_URL`, else through a Janus the server runs itself when installed (else the control page says video is unavailable). `off`: no video.',
  },
  {
    name: 'STUN_URLS',
    default: DEFAULT_STUN_URL,
    meaning: 'Comma-separated `stun:`/`stuns:` URLs given to browsers. Empty: no STUN server.',
  },
  {
    name: 'TURN_URLS',
    default: '(unset)',
    meaning:
      'Comma-separated `turn:`/`turns:` URLs given to browsers with credentials valid for one hour (needs `TURN_SECRET`).',
  },
  {
    name: 'TURN_SECRET',
    default: '(unset)',
    meaning:
      "coturn's `static-auth-secret` (`use-auth-secret`): the server derives short-lived TURN credentials from it. Set with `TURN_URLS`.",
  },
];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const JWT_SECRET_MIN_LENGTH = 32;
const JWT_SECRET_FILE = 'jwt-secret';

/** Empty variables count as unset (a blank line in an env file must not mean "empty value"). */
const unsetIfEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

/** Links shown by the web app: the same rule as the protocol's, so config can't produce what it rejects. */
const Link = PublicConfig.shape.promoVideoUrl
  .unwrap()
  .refine((value) => value.startsWith('/') || URL.canParse(value), 'must be a valid URL');

/** Empty string means "none"; unset means the default. */
const optionalLink = z.union([z.literal(''), Link]).optional();

const booleanVariable = () =>
  unsetIfEmpty(
    z
      .string()
      .transform((value) => value.toLowerCase())
      .refine((value) => [...TRUE_VALUES, ...FALSE_VALUES].includes(value), 'must be true or false')
      .transform((value) => TRUE_VALUES.includes(value)),
  );

const DEFAULT_RECAPTCHA_VERIFY_URL = 'https://www.google.com/recaptcha/api/siteverify';
const DEFAULT_MAIL_FROM = 'Telerace <no-reply@localhost>';

/** Comma-separated ICE server URLs of the given schemes; blanks between commas are ignored. */
const iceUrlList = (schemes: readonly string[]) =>
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((url) => url.trim())
        .filter((url) => url !== ''),
    )
    .refine(
      (urls) => urls.every((url) => new RegExp(`^(${schemes.join('|')}):[^\\s,]+$`).test(url)),
      `must be comma-separated ${schemes.map((scheme) => `${scheme}:`).join(' or ')} URLs`,
    );

const integerBetween = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `must be an integer between ${min} and ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be an integer between ${min} and ${max}`);

/** A single IPv4/IPv6 address or CIDR (what Fastify's trustProxy takes in a list). */
const PROXY_ADDRESS = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-fA-F:]*:[0-9a-fA-F:.]*)(?:\/\d{1,3})?$/;

/**
 * TRUST_PROXY: `false`/`0`, a hop count, or proxy addresses. `true` is refused on purpose: trusting
 * every hop makes the leftmost X-Forwarded-For (written by the client) the client's address.
 */
const trustProxyVariable = () =>
  z.string().transform((raw, context): false | number | string[] => {
    const value = raw.trim().toLowerCase();
    // Digits first: `1` is one hop here, not "true".
    if (/^\d{1,2}$/.test(value)) return Number(value) === 0 ? false : Number(value);
    if (FALSE_VALUES.includes(value)) return false;
    if (TRUE_VALUES.includes(value)) {
      context.addIssue({
        code: 'custom',
        message:
          "must be the number of proxy hops (e.g. 1) or the proxies' addresses, not true (any client could then choose its own IP)",
      });
      return z.NEVER;
    }
    const addresses = value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
    if (addresses.length === 0 || !addresses.every((address) => PROXY_ADDRESS.test(address))) {
      context.addIssue({
        code: 'custom',
        message: 'must be false, a number of proxy hops, or comma-separated proxy addresses/CIDRs',
      });
      return z.NEVER;
    }
    return addresses;
  });

const PORT_MESSAGE = 'must be an integer between 1 and 65535';
const TRUE_VALUES = ['true', '1', 'yes'];
const FALSE_VALUES = ['false', '0', 'no'];

/** The environment as the server reads it; CONFIG_DOCS documents each key. */
export const EnvSchema = z.object({
  PORT: unsetIfEmpty(
    z
      .string()
      .regex(/^\d{1,5}$/, PORT_MESSAGE)
      .transform(Number)
      .refine((port) => port >= 1 && port <= 65535, PORT_MESSAGE),
  ),
  HOST: unsetIfEmpty(z.string()),
  DATA_DIR: unsetIfEmpty(z.string()),
  DATABASE_URL: unsetIfEmpty(
    z
      .string()
      .refine(
        (url) => /^postgres(ql)?:\/\//.test(url) && URL.canParse(url),
        'must be a postgres:// or postgresql:// URL',
      ),
  ),
  PUBLIC_URL: unsetIfEmpty(
    z
      .string()
      .refine(
        (url) => URL.canParse(url) && ['http:', 'https:'].includes(new URL(url).protocol),
        'must be an http:// or https:// URL',
      ),
  ),
  JWT_SECRET: unsetIfEmpty(
    z.string().min(JWT_SECRET_MIN_LENGTH, `must be at least ${JWT_SECRET_MIN_LENGTH} characters long`),
  ),
  ACCESS_TOKEN_TTL_SECONDS: unsetIfEmpty(
    z
      .string()
      .regex(/^\d{1,3}$/, 'must be an integer between 10 and 900')
      .transform(Number)
      .refine((n) => n >= 10 && n <= 900, 'must be an integer between 10 and 900'),
  ),
  LOG_LEVEL: unsetIfEmpty(z.enum(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`)),
  TRUST_PROXY: unsetIfEmpty(trustProxyVariable()),
  MAX_CONNECTIONS: unsetIfEmpty(integerBetween(100, 1_000_000)),
  SOCKETS_PER_IP: unsetIfEmpty(integerBetween(1, 100_000)),
  CONTROL_CODE_TTL_MINUTES: unsetIfEmpty(integerBetween(1, 1440)),
  API_RATE_LIMIT_PER_MINUTE: unsetIfEmpty(
    z
      .string()
      .regex(/^\d{1,9}$/, 'must be a positive integer')
      .transform(Number)
      .refine((n) => n >= 1, 'must be a positive integer'),
  ),
  SIGNUP_RATE_LIMIT_PER_HOUR: unsetIfEmpty(
    z
      .string()
      .regex(/^\d{1,9}$/, 'must be a positive integer')
      .transform(Number)
      .refine((n) => n >= 1, 'must be a positive integer'),
  ),
  WEB_DIST_DIR: unsetIfEmpty(z.string()),
  PROMO_VIDEO_URL: optionalLink,
  COMMUNITY_STREAMING_URL: optionalLink,
  COMMUNITY_VIDEO_URL: optionalLink,
  COMMUNITY_CHAT_URL: optionalLink,
  RECAPTCHA_SITE_KEY: unsetIfEmpty(z.string()),
  RECAPTCHA_SECRET: unsetIfEmpty(z.string()),
  RECAPTCHA_VERIFY_URL: unsetIfEmpty(
    z
      .string()
      .refine(
        (url) => URL.canParse(url) && ['http:', 'https:'].includes(new URL(url).protocol),
        'must be an http:// or https:// URL',
      ),
  ),
  SMTP_URL: unsetIfEmpty(
    z
      .string()
      .refine(
        (url) => URL.canParse(url) && ['smtp:', 'smtps:'].includes(new URL(url).protocol),
        'must be an smtp:// or smtps:// URL',
      ),
  ),
  MAIL_FROM: unsetIfEmpty(z.string()),
  ADMIN_EMAIL: unsetIfEmpty(z.email('must be an e-mail address')),
  ADMIN_PASSWORD: unsetIfEmpty(
    z
      .string()
      .min(PASSWORD_MIN_LENGTH, `must be ${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters long`)
      .max(PASSWORD_MAX_LENGTH, `must be ${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters long`),
  ),
  DEMO_ACCOUNTS: booleanVariable(),
  SIM_CARS: unsetIfEmpty(
    z
      .string()
      .regex(/^\d{1,2}$/, 'must be an integer between 0 and 20')
      .transform(Number)
      .refine((n) => n <= 20, 'must be an integer between 0 and 20'),
  ),
  JANUS_URL: unsetIfEmpty(
    z
      .string()
      .refine(
        (url) => URL.canParse(url) && ['ws:', 'wss:'].includes(new URL(url).protocol),
        'must be a ws:// or wss:// URL',
      ),
  ),
  JANUS_ADMIN_KEY: unsetIfEmpty(z.string()),
  JANUS_API_URL: unsetIfEmpty(
    z
      .string()
      .refine(
        (url) => URL.canParse(url) && ['http:', 'https:'].includes(new URL(url).protocol),
        'must be an http:// or https:// URL',
      ),
  ),
  JANUS_RTP_HOST: unsetIfEmpty(
    z.string().regex(/^[A-Za-z0-9.:-]{1,255}$/, 'must be a host name or IP address'),
  ),
  JANUS_CHECK_SECONDS: unsetIfEmpty(
    z
      .string()
      .regex(/^\d{1,3}$/, 'must be an integer between 1 and 300')
      .transform(Number)
      .refine((n) => n >= 1 && n <= 300, 'must be an integer between 1 and 300'),
  ),
  VIDEO: unsetIfEmpty(z.enum(['auto', 'off'], 'must be auto or off')),
  // Empty means "no STUN server", so no unsetIfEmpty here.
  STUN_URLS: iceUrlList(['stun', 'stuns']).optional(),
  TURN_URLS: unsetIfEmpty(iceUrlList(['turn', 'turns'])),
  TURN_SECRET: unsetIfEmpty(z.string()),
});

/** Variables whose value must never be echoed, even in an error message. */
const SECRET_VARIABLES = new Set([
  'JWT_SECRET',
  'DATABASE_URL',
  'RECAPTCHA_SECRET',
  'SMTP_URL',
  'ADMIN_PASSWORD',
  'JANUS_ADMIN_KEY',
  'TURN_SECRET',
]);

function describeValue(name: string, value: unknown): string {
  if (typeof value !== 'string') return 'not a string';
  if (SECRET_VARIABLES.has(name)) return `a value of ${value.length} characters`;
  return JSON.stringify(value);
}

/** Janus's REST transport listens on 8088 at `/janus` by default, on the WebSocket's host. */
function defaultJanusApiUrl(janusUrl: string): string {
  const url = new URL(janusUrl);
  return `${url.protocol === 'wss:' ? 'https' : 'http'}://${url.hostname}:8088/janus`;
}

function link(value: string | undefined, fallback: string): string | null {
  if (value === undefined) return fallback;
  return value === '' ? null : value;
}

/** DATA_DIR as the server resolves it (`npm run backup`/`restore` read only this and DATABASE_URL). */
export function dataDirFrom(env: Record<string, string | undefined>): string {
  // Empty means unset, as for every variable.
  return resolve(env.DATA_DIR || './data');
}

/**
 * Parses the environment. Pure except for the JWT secret: when none is given it is read from, or
 * generated into, `DATA_DIR/jwt-secret`.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    // The first problem of each variable is enough to fix it.
    const problems = new Map<string, string>();
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0]);
      if (!problems.has(name))
        problems.set(name, `${name} ${issue.message} (got ${describeValue(name, env[name])})`);
    }
    throw new ConfigError(`Invalid configuration: ${[...problems.values()].join('; ')}`);
  }
  const vars = parsed.data;
  if ((vars.ADMIN_EMAIL === undefined) !== (vars.ADMIN_PASSWORD === undefined)) {
    throw new ConfigError('Invalid configuration: ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
  }
  const turnUrls = vars.TURN_URLS ?? [];
  if (turnUrls.length > 0 !== (vars.TURN_SECRET !== undefined)) {
    throw new ConfigError('Invalid configuration: TURN_URLS and TURN_SECRET must be set together');
  }
  if (vars.JANUS_ADMIN_KEY !== undefined && vars.JANUS_URL === undefined) {
    throw new ConfigError(
      'Invalid configuration: JANUS_ADMIN_KEY needs JANUS_URL (the Janus the server runs has its own key)',
    );
  }
  if (vars.JANUS_API_URL !== undefined && vars.JANUS_URL === undefined) {
    throw new ConfigError('Invalid configuration: JANUS_API_URL needs JANUS_URL');
  }
  const port = vars.PORT ?? 8080;
  const dataDir = dataDirFrom(env);
  return {
    port,
    host: vars.HOST ?? '127.0.0.1',
    dataDir,
    databaseUrl: vars.DATABASE_URL ?? null,
    publicUrl: (vars.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    jwtSecret: vars.JWT_SECRET ?? loadOrCreateJwtSecret(dataDir),
    accessTokenTtlSeconds: vars.ACCESS_TOKEN_TTL_SECONDS ?? 900,
    logLevel: vars.LOG_LEVEL ?? 'info',
    trustProxy: vars.TRUST_PROXY ?? false,
    maxConnections: vars.MAX_CONNECTIONS ?? 10_000,
    socketsPerIp: vars.SOCKETS_PER_IP ?? 50,
    controlCodeTtlMinutes: vars.CONTROL_CODE_TTL_MINUTES ?? 15,
    apiRateLimitPerMinute: vars.API_RATE_LIMIT_PER_MINUTE ?? 300,
    signupRateLimitPerHour: vars.SIGNUP_RATE_LIMIT_PER_HOUR ?? 10,
    webDistDir: vars.WEB_DIST_DIR === undefined ? DEFAULT_WEB_DIST_DIR : resolve(vars.WEB_DIST_DIR),
    promoVideoUrl: link(vars.PROMO_VIDEO_URL, '/media/promo.webm'),
    community: {
      streaming: link(vars.COMMUNITY_STREAMING_URL, 'https://www.twitch.tv/telerace'),
      video: link(vars.COMMUNITY_VIDEO_URL, 'https://www.youtube.com/@telerace'),
      chat: link(vars.COMMUNITY_CHAT_URL, 'https://discord.gg/telerace'),
    },
    recaptchaSiteKey: vars.RECAPTCHA_SITE_KEY ?? null,
    recaptchaSecret: vars.RECAPTCHA_SECRET ?? null,
    recaptchaVerifyUrl: vars.RECAPTCHA_VERIFY_URL ?? DEFAULT_RECAPTCHA_VERIFY_URL,
    smtpUrl: vars.SMTP_URL ?? null,
    mailFrom: vars.MAIL_FROM ?? DEFAULT_MAIL_FROM,
    admin:
      vars.ADMIN_EMAIL !== undefined && vars.ADMIN_PASSWORD !== undefined
        ? { email: vars.ADMIN_EMAIL.toLowerCase(), password: vars.ADMIN_PASSWORD }
        : null,
    demoAccounts: vars.DEMO_ACCOUNTS ?? false,
    simCars: vars.SIM_CARS ?? 0,
    janusUrl: vars.JANUS_URL ?? null,
    janusAdminKey: vars.JANUS_ADMIN_KEY ?? null,
    janusApiUrl:
      vars.JANUS_URL === undefined ? null : (vars.JANUS_API_URL ?? defaultJanusApiUrl(vars.JANUS_URL)),
    video: vars.VIDEO ?? 'auto',
    janusRtpHost: vars.JANUS_RTP_HOST ?? '127.0.0.1',
    janusCheckSeconds: vars.JANUS_CHECK_SECONDS ?? 10,
    stunUrls: vars.STUN_URLS ?? [DEFAULT_STUN_URL],
    turnUrls,
    turnSecret: vars.TURN_SECRET ?? null,
  };
}

/**
 * A generated secret is kept on disk so a restart does not sign everybody out. `wx` makes two
 * processes starting at once agree on the first one written instead of overwriting each other.
 */
function loadOrCreateJwtSecret(dataDir: string): string {
  const file = join(dataDir, JWT_SECRET_FILE);
  try {
    mkdirSync(dataDir, { recursive: true });
    const existing = readSecretFile(file);
    if (existing !== null) return existing;
    const secret = randomBytes(48).toString('base64url');
    try {
      writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
      return secret;
    } catch (error) {
      const raced = isErrnoCode(error, 'EEXIST') ? readSecretFile(file) : null;
      if (raced !== null) return raced;
      throw error;
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(
      `Invalid configuration: DATA_DIR ${JSON.stringify(dataDir)} is not usable for ${JWT_SECRET_FILE} (${code})`,
    );
  }
}

function readSecretFile(file: string): string | null {
  let content: string;
  try {
    content = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return null;
    throw error;
  }
  if (content.length < JWT_SECRET_MIN_LENGTH) {
    throw new ConfigError(
      `Invalid configuration: ${file} holds a secret shorter than ${JWT_SECRET_MIN_LENGTH} characters (delete it to generate a new one, or set JWT_SECRET)`,
    );
  }
  return content;
}

function isErrnoCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === code;
}
