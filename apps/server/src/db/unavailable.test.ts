import { DrizzleQueryError } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, isStorageFull, unavailableReason } from './unavailable.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const wrapped = (cause: Error) => new DrizzleQueryError('select 1', [], cause);

describe('a database that is not there, told from a query that is wrong', () => {
  it.each([
    ['refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), 'ECONNREFUSED'],
    ['reset', withCode('read ECONNRESET', 'ECONNRESET'), 'ECONNRESET'],
    ['starting up (57P03)', withCode('the database system is starting up', '57P03'), '57P03'],
    ['terminated (57P01)', withCode('terminating connection due to administrator command', '57P01'), '57P01'],
    ['postmaster died (57P02)', withCode('terminating connection because of crash', '57P02'), '57P02'],
    ['connection exception (08006)', withCode('connection failure', '08006'), '08006'],
    ['pg: terminated', new Error('Connection terminated unexpectedly'), 'connection lost'],
    [
      'pg: broken client',
      new Error('Client has encountered a connection error and is not queryable'),
      'connection lost',
    ],
    ['pg: pool timeout', new Error('timeout exceeded when trying to connect'), 'connection lost'],
  ])(
    '%s, bare or wrapped by drizzle, is unavailable with a reason that quotes no address',
    (_, error, reason) => {
      expect(unavailableReason(error)).toBe(reason);
      expect(unavailableReason(wrapped(error))).toBe(reason);
      expect(reason).not.toMatch(/127\.0\.0\.1/);
    },
  );

  it.each([
    ['a unique violation', withCode('duplicate key value', '23505')],
    ['a syntax error', withCode('syntax error at or near "selec"', '42601')],
    ['a serialization failure (retried elsewhere)', withCode('could not serialize access', '40001')],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'ECONNREFUSED'],
  ])('%s is not', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
    expect(isDatabaseUnavailable(error instanceof Error ? wrapped(error) : error)).toBe(false);
  });
});

describe('a full disk', () => {
  it.each([
    [
      'PostgreSQL or PGlite (53100 disk_full)',
      withCode('could not extend file "base/5/16385": No space left on device', '53100'),
    ],
    ['a file write (ENOSPC)', withCode('ENOSPC: no space left on device, write', 'ENOSPC')],
  ])('%s, bare or wrapped by drizzle, is a full disk, not an unavailable database', (_, error) => {
    expect(isStorageFull(error)).toBe(true);
    expect(isStorageFull(wrapped(error))).toBe(true);
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('other failures are not', () => {
    expect(isStorageFull(withCode('connect ECONNREFUSED', 'ECONNREFUSED'))).toBe(false);
    expect(isStorageFull(withCode('out of memory', '53200'))).toBe(false);
  });
});
