/**
 * Logger settings (pino, through Fastify). Owns what must never reach a log line: credentials in
 * headers, in bodies, and in query strings (sockets carry `token` and `control_token` there,
 * because browsers cannot set headers on a WebSocket).
 */
import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import type { LogLevel } from '../config.js';

export const REDACTED = '[REDACTED]';

/** Where log lines go (pino's destination stream shape); tests pass one to read the log. */
export interface LogStream {
  write(line: string): void;
}

/** Query parameters that carry a credential. Matched case-insensitively. */
export const SENSITIVE_QUERY_PARAMS = [
  'token',
  'control_token',
  'controlToken',
  'access_token',
  'refresh_token',
  'code',
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

const SENSITIVE_QUERY_PATTERN = new RegExp(`([?&](?:${SENSITIVE_QUERY_PARAMS.join('|')})=)[^&#]*`, 'gi');

/** The URL with the value of every credential-carrying query parameter replaced. */
export function redactUrl(url: string): string {
  return url.includes('?') ? url.replace(SENSITIVE_QUERY_PATTERN, `$1${REDACTED}`) : url;
}

export function loggerOptions(
  level: LogLevel,
  stream?: LogStream,
): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: { paths: REDACT_PATHS, censor: REDACTED },
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
