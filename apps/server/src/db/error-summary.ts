/**
 * What a log may say of a failed query. Drizzle's DrizzleQueryError reads "Failed query: <SQL>
 * params: <values>" (an e-mail, a token's hash, a bio…), and the driver's error under it (pg's or
 * PGlite's DatabaseError) carries them again: PGlite keeps `query` and `params`, `where` quotes a
 * parameter, the message quotes a value ("invalid input syntax for type integer: \"…\"") and the
 * detail of a constraint violation is the whole row ("Failing row contains (…)"). A summary keeps
 * only what names the failure without a value: its SQLSTATE code, the constraint, table, column and
 * type it concerns, the server routine that raised it, and where our code called it (stack frames).
 */
import { DrizzleQueryError } from 'drizzle-orm';

/** How deep `cause` chains are followed (a guard against cycles). */
const MAX_CAUSES = 5;

/** The fields of a driver's error that name the failure without quoting a value. */
const SAFE_FIELDS = [
  'code',
  'severity',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'routine',
] as const;

type Fields = Record<string, unknown>;

/** pg's and PGlite's DatabaseError: a SQLSTATE code (five characters) and a severity. */
function isDriverError(value: unknown): value is Error & Fields {
  if (!(value instanceof Error)) return false;
  const { code, severity } = value as unknown as Fields;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string';
}

function causesOf(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current instanceof Error && chain.length < MAX_CAUSES) {
    chain.push(current);
    current = current.cause;
  }
  return chain;
}

/** Whether the error is, or was caused by, a failed query. */
export function isDatabaseError(error: unknown): boolean {
  return causesOf(error).some((link) => link instanceof DrizzleQueryError || isDriverError(link));
}

/** The "at …" lines of a stack, without its first lines (the message, which may quote values). */
function framesOf(error: Error): string[] {
  return error.stack?.split('\n').filter((line) => /^\s+at /.test(line)) ?? [];
}

/**
 * What the log keeps of a failed query: a fixed message, the safe fields of the driver's error as
 * its own fields (`code`, `constraint`, `table`…) and the stack frames of the error as thrown
 * (where our code ran the query), logged like any other error.
 */
export class FailedQuery extends Error {
  constructor(error: Error) {
    super('database query failed');
    this.name = 'FailedQuery';
    const chain = causesOf(error);
    const driver = chain.find(isDriverError);
    const fields = this as unknown as Fields;
    for (const field of SAFE_FIELDS) {
      const value = driver?.[field];
      if (typeof value === 'string' && value !== '') fields[field] = value;
    }
    // No answer from the database (a lost connection, a pool that gave up): the driver's own words
    // quote no query, and they are what an operator needs.
    const innermost = chain[chain.length - 1];
    if (!driver && innermost instanceof Error && !(innermost instanceof DrizzleQueryError)) {
      fields.reason = innermost.message;
      const { code } = innermost as Error & Fields;
      if (typeof code === 'string') fields.code = code;
    }
    this.stack = [`${this.name}: ${this.message} (${error.constructor.name})`, ...framesOf(error)].join('\n');
  }
}
