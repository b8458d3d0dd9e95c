/**
 * Logger settings (pino, through Fastify). Owns what must never reach a log line: credentials in
 * headers, in bodies, and in query strings (sockets carry `token` and `control_token` there,
 * because browsers cannot set headers on a WebSocket), and the values of a failed query.
 */
import {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';

import type { LogLevel } from '../config.js';
import { FailedQuery, isDatabaseError } from '../db/error-summary.js';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;

export const REDACTED = '[REDACTED]';

/** Where log lines go (pino's destination stream shape); tests pass one to read the log. */
export interface LogStream {
  write(line: string): void;
}

/** Query parameters that carry a credential. Matched case-insensitively, on the decoded name. */
export const SENSITIVE_QUERY_PARAMS = [
  'token',
  'control_token',
  'controlToken',
  'access_token',
  'refresh_token',
  'id_token',
  'jwt',
  'code',
  'password',
  'secret',
] as const;

const SENSITIVE_FIELDS = [
  'password',
  'currentPassword',
  'newPassword',
  'token',
  'accessToken',
  'refreshToken',
  'controlToken',
  'control_token',
  'secret',
];

/**
 * pino `redact` paths. A wildcard only reaches one level, so fields are listed at the top level
 * and one level down (`{ body }`, `{ user }`…); headers are covered wherever a request is logged.
 */
const REDACT_PATHS = [
  ...['req.headers', 'request.headers', 'headers'].flatMap((headers) => [
    `${headers}.authorization`,
    `${headers}.cookie`,
    `${headers}["x-car-secret"]`,
  ]),
  'res.headers["set-cookie"]',
  'reply.headers["set-cookie"]',
  ...SENSITIVE_FIELDS.flatMap((field) => [field, `*.${field}`]),
];

const SENSITIVE_NAMES = new Set<string>(SENSITIVE_QUERY_PARAMS.map((name) => name.toLowerCase()));

/** A JWT (header `{"…` base64url-encoded, payload, signature possibly empty), whatever carries it. */
const JWT_PATTERN = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** The reset link's page carries its token in the path. */
const RESET_PAGE_PATTERN = /^(\/reset-password\/)[^/?#]+/;

/**
 * Percent-decodes until stable (a few rounds at most), so `%74oken` and `%2574oken` both read as
 * `token`; a malformed escape leaves the text as it is.
 */
function decoded(text: string): string {
  let current = text.replace(/\+/g, ' ');
  for (let round = 0; round < 3 && current.includes('%'); round++) {
    try {
      const next = decodeURIComponent(current);
      if (next === current) break;
      current = next;
    } catch {
      break;
    }
  }
  return current;
}

function isSensitiveParam(rawName: string, rawValue: string): boolean {
  return SENSITIVE_NAMES.has(decoded(rawName).toLowerCase()) || JWT_PATTERN.test(decoded(rawValue));
}

/**
 * The URL with the value of every credential-carrying query parameter replaced: names compared
 * after decoding (the query parser decodes them too), and any value that is a JWT; the reset
 * page's token in the path too.
 */
export function redactUrl(url: string): string {
  const hashAt = url.indexOf('#');
  const beforeHash = hashAt === -1 ? url : url.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : url.slice(hashAt);
  const queryAt = beforeHash.indexOf('?');
  const path = (queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt)).replace(
    RESET_PAGE_PATTERN,
    `$1${REDACTED}`,
  );
  if (queryAt === -1) return path + fragment;
  const query = beforeHash
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const equalsAt = pair.indexOf('=');
      if (equalsAt === -1) return pair;
      const name = pair.slice(0, equalsAt);
      return isSensitiveParam(name, pair.slice(equalsAt + 1)) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${path}?${query}${fragment}`;
}

/**
 * A log call's arguments with every failed query (as the error logged, or as a field of the logged
 * object: `{ err }`) replaced by its FailedQuery summary, so neither the parameters nor values
 * quoted by the database reach a line (db/error-summary.ts). Anything else goes through as it is.
 */
export function withoutQueryValues(args: unknown[]): unknown[] {
  const [first, ...rest] = args;
  if (first instanceof Error) return isDatabaseError(first) ? [new FailedQuery(first), ...rest] : args;
  if (typeof first !== 'object' || first === null) return args;
  let safe: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(first)) {
    if (value instanceof Error && isDatabaseError(value)) {
      safe ??= { ...first };
      safe[key] = new FailedQuery(value);
    }
  }
  return safe ? [safe, ...rest] : args;
}

export function loggerOptions(
  level: LogLevel,
  stream?: LogStream,
): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    hooks: {
      logMethod(args, method) {
        method.apply(this, withoutQueryValues(args) as Parameters<typeof method>);
      },
    },
    serializers: {
      req(request: FastifyRequest) {
        return {
          method: request.method,
          url: redactUrl(request.url),
          host: request.host,
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        };
      },
    },
  };
}

/**
 * Fastify's two lines per request ("incoming request", "request completed") only at debug and
 * trace: at the default level they halved the throughput of a cached read, for lines nobody reads
 * at thousands per second. What stays at every level: failed and rejected requests (with their
 * URL, by the error handler) and slow ones (`registerSlowRequestLog`); see docs/decisions.md.
 */
export function requestLogController(level: LogLevel): LogController {
  return new LogController({ disableRequestLogging: level !== 'debug' && level !== 'trace' });
}

/** A request that took longer than this to answer is logged (warn) with its URL and status. */
export const SLOW_REQUEST_MS = 1_000;

export function registerSlowRequestLog(app: FastifyInstance, thresholdMs = SLOW_REQUEST_MS): void {
  app.addHook('onResponse', (request, reply, done) => {
    if (reply.elapsedTime >= thresholdMs)
      request.log.warn(
        { req: request, statusCode: reply.statusCode, responseTime: Math.round(reply.elapsedTime) },
        'slow request',
      );
    done();
  });
}

/**
 * Each request's logger, made when first used. Fastify gives every request a pino child with its
 * request id bound; making one runs pino's redaction over the bindings, which was ~12 % of all
 * that a cached read allocated (heap sampling under `npm run bench -- http`; the collections
 * that followed were the largest cost left), for a logger most requests never write to (the
 * per-request lines are off below debug). The child is made on the first call, the same one as
 * before, so what a request does log is unchanged.
 */
export class LazyRequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | null = null;

  constructor(
    readonly parent: FastifyBaseLogger,
    readonly bindings: Bindings,
    readonly options: ChildLoggerOptions,
  ) {}

  get #logger(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.#logger.level = level;
  }

  // Methods on the prototype, not closures per instance: one small object per request.
  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(...args: unknown[]): void {
    this.#write('silent', args);
  }

  #write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent', args: unknown[]): void {
    const logger = this.#logger;
    (logger[level] as (...args: unknown[]) => void).apply(logger, args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a request's logger made on first use (`LazyRequestLogger`). */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options);
}
