/**
 * The leader lock against a real PostgreSQL (issue 39; the handover between two real server
 * processes is leadership.instances.test.ts): a follower waits in PostgreSQL's lock queue, so it
 * leads the moment the leader's connection ends instead of at its next try (up to a second
 * later); and the deadline the leader's connection check uses is not fooled by a stalled event
 * loop, where pg's own query timeout is. Every leadership is stopped after each test, a follower
 * waiting in the queue included.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../test/app.js';
import { quietLogger } from '../test/quiet-logger.js';
import { AdvisoryLockLeadership, LEADER_LOCK, type LeadershipTiming } from './leadership.js';
import { settlesWithin } from './settles-within.js';

/** Keeps the event loop busy, as a long collection or a burst of work does. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('the leader lock', () => {
  let environment: TestEnvironment;
  let databaseUrl: string;
  const clients: pg.Client[] = [];
  const running: AdvisoryLockLeadership[] = [];

  beforeAll(async () => {
    environment = await createTestEnvironment();
    databaseUrl = environment.env.DATABASE_URL as string;
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const leadership of running.splice(0)) await leadership.stop();
    for (const client of clients.splice(0)) await client.end();
  });
  afterAll(async () => {
    await environment?.dispose();
  });

  const connect = async (options: pg.ClientConfig = {}) => {
    const client = new pg.Client({ connectionString: databaseUrl, ...options });
    clients.push(client);
    await client.connect();
    return client;
  };

  /** A started leadership, when its role was told to lead, and how often it was told to follow. */
  async function instance(timing?: Partial<LeadershipTiming>) {
    const leadership = new AdvisoryLockLeadership({ databaseUrl, log: quietLogger(), timing });
    running.push(leadership);
    let follows = 0;
    // Started, then the role assigned, as the modules do (leadership.module.ts starts first).
    await leadership.start();
    const led = new Promise<number>((resolve) => {
      void leadership.assign({
        name: 'race',
        lead: () => resolve(performance.now()),
        follow: () => {
          follows += 1;
        },
      });
    });
    return { leadership, led, follows: () => follows };
  }

  it('a follower leads within 300 ms of the leader’s connection ending: it was waiting in the lock queue', async () => {
    const a = await instance();
    expect(a.leadership.leading).toBe(true);
    const b = await instance();
    expect(b.leadership.leading).toBe(false);
    // Its role follows from the start (the race engine loads its copy of the leader's race).
    await expect.poll(b.follows).toBe(1);

    // The leader's connection ends, as when its process is killed.
    const admin = await connect();
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2`,
      [LEADER_LOCK.classId, LEADER_LOCK.objectId],
    );
    const endedAt = performance.now();
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);

    const handover = (await b.led) - endedAt;
    console.info(`[measure] the follower led ${handover.toFixed(0)} ms after the leader's connection ended`);
    expect(handover).toBeLessThan(300);
    await expect.poll(() => a.leadership.leading).toBe(false);
  });

  it('a stalled event loop is no silence: an answer that arrived during the stall is in time', async () => {
    // The check as it was: pg's own timeout on the connection.
    const [plain, judged] = [await connect({ query_timeout: 100 }), await connect()];
    // The answer comes 20 ms after the question; the loop is busy for 300 ms from the next turn.
    const question = 'SELECT pg_sleep(0.02)';
    const withPgTimeout = plain.query(question);
    setImmediate(() => stall(300));
    await expect(withPgTimeout).rejects.toThrow(/timeout/i);

    const answer = judged.query(question);
    setImmediate(() => stall(300));
    expect(await settlesWithin(answer, 100)).not.toBeNull();
    // And a real silence is still one.
    expect(await settlesWithin(judged.query('SELECT pg_sleep(1)'), 100)).toBeNull();
  });

  it('a leader keeps the lock through a stall longer than its check’s deadline', async () => {
    const a = await instance({ checkMs: 50, checkTimeoutMs: 100 });
    expect(a.leadership.leading).toBe(true);
    // The next check's question goes out, then the loop is busy past the deadline (and past the
    // 2 s pg timeout the check had before): the answer is there when it looks.
    const original = pg.Client.prototype.query;
    const queries = vi.spyOn(pg.Client.prototype, 'query').mockImplementationOnce(function (
      this: pg.Client,
      ...args: Parameters<typeof original>
    ) {
      const sent = original.apply(this, args);
      stall(2_200);
      return sent;
    } as typeof original);

    await expect
      .poll(() => queries.mock.calls.length, { interval: 20, timeout: 5_000 })
      .toBeGreaterThanOrEqual(3);
    expect(a.leadership.leading).toBe(true);
    expect(a.follows()).toBe(0);
  });
});
