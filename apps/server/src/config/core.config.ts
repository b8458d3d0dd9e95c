/**
 * Settings of the server itself: where it listens and keeps its state, which database, how it is
 * reached, what it logs, the limits that protect it, and the web app it serves.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_WEB_DIST_DIR } from '../paths.js';
import { defineSection, setting } from './define.js';
import { FALSE_VALUES, httpUrl, integerBetween, positiveInteger, TRUE_VALUES } from './schemas.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_DATA_DIR = './data';

/** A single IPv4/IPv6 address or CIDR (what Fastify's trustProxy takes in a list). */
const PROXY_ADDRESS = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-fA-F:]*:[0-9a-fA-F:.]*)(?:\/\d{1,3})?$/;

/**
 * TRUST_PROXY: `false`/`0`, a hop count, or proxy addresses. `true` is refused on purpose: trusting
 * every hop makes the leftmost X-Forwarded-For (written by the client) the client's address.
 */
const trustProxy = () =>
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

const absolutePath = () => z.string().transform((path) => resolve(path));

export const coreConfig = defineSection(
  {
    port: setting({
      env: 'PORT',
      schema: integerBetween(1, 65535),
      default: '8080',
      doc: 'TCP port the HTTP server listens on (1–65535).',
    }),
    host: setting({
      env: 'HOST',
      schema: z.string(),
      default: '127.0.0.1',
      doc: 'Address to listen on; `0.0.0.0` to accept connections from other machines.',
    }),
    dataDir: setting({
      env: 'DATA_DIR',
      schema: absolutePath(),
      default: DEFAULT_DATA_DIR,
      doc: 'Folder for local state (embedded database under `db/`, generated `jwt-secret`). Relative paths are resolved from the working directory.',
    }),
    databaseUrl: setting({
      env: 'DATABASE_URL',
      schema: z
        .string()
        .refine(
          (url) => /^postgres(ql)?:\/\//.test(url) && URL.canParse(url),
          'must be a postgres:// or postgresql:// URL',
        ),
      default: null,
      doc: 'PostgreSQL connection URL (`postgres://` or `postgresql://`). Unset: the embedded PGlite database in `DATA_DIR/db` is used.',
      secret: true,
    }),
    publicUrl: setting({
      env: 'PUBLIC_URL',
      schema: httpUrl().transform((url) => url.replace(/\/+$/, '')),
      default: null,
      defaultDoc: '`http://localhost:<PORT>`',
      doc: 'Address users reach the site at, exactly as their browsers show it: the sockets accept only this origin (`Origin` header), and it goes into the Content-Security-Policy; `https://` turns on HSTS and upgrade-insecure-requests.',
    }),
    logLevel: setting({
      env: 'LOG_LEVEL',
      schema: z.enum(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`),
      default: 'info',
      doc: `Log level: ${LOG_LEVELS.join(', ')}.`,
    }),
    apiRateLimitPerMinute: setting({
      env: 'API_RATE_LIMIT_PER_MINUTE',
      schema: positiveInteger(),
      default: '300',
      doc: 'Requests per client IP and minute on `/api` before answering 429 (static files are not limited).',
    }),
    trustProxy: setting({
      env: 'TRUST_PROXY',
      schema: trustProxy(),
      default: 'false',
      doc: "Behind a reverse proxy: the number of proxy hops in front of the server (`1` for one nginx), or a comma-separated list of the proxies' addresses or CIDRs, so client IPs (rate limits, login history) come from `X-Forwarded-For`. `true` is refused: it would let clients choose their own address. See docs/security.md.",
    }),
    maxConnections: setting({
      env: 'MAX_CONNECTIONS',
      schema: integerBetween(100, 1_000_000),
      default: '10000',
      doc: "Open connections (HTTP and sockets) the server accepts at once (100–1000000); keep it under the process's file-descriptor limit (`ulimit -n`).",
    }),
    socketsPerIp: setting({
      env: 'SOCKETS_PER_IP',
      schema: integerBetween(1, 100_000),
      default: '50',
      doc: 'Event and control sockets one client IP may hold at once (1–100000); more are refused with 429. Raise it for an event where many people share one address.',
    }),
    webDistDir: setting({
      env: 'WEB_DIST_DIR',
      schema: absolutePath(),
      default: null,
      // The default is next to the server package, wherever the server is started from.
      defaultDoc: '`apps/web/dist`',
      doc: 'Folder of the built web app served by the server (`npm run build` creates it); the public pages’ renderer is read from `dist-ssr/entry-server.js` beside it (without it, the browser draws every page).',
    }),
  },
  ({ publicUrl, webDistDir, ...values }) => ({
    ...values,
    publicUrl: publicUrl ?? `http://localhost:${values.port}`,
    webDistDir: webDistDir ?? DEFAULT_WEB_DIST_DIR,
  }),
);
