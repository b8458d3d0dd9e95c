/** A logger that says nothing, for the parts tests start on their own (e.g. a Janus). */
import type { FastifyBaseLogger } from 'fastify';

export function quietLogger(): FastifyBaseLogger {
  const noop = () => {};
  const logger = {
    level: 'silent',
    fatal: noop,
    error: noop,
    warn: noop,
    info: noop,
    debug: noop,
    trace: noop,
    silent: noop,
    child: () => logger,
  };
  return logger as unknown as FastifyBaseLogger;
}
