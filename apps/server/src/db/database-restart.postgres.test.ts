/**
 * PostgreSQL killed and restarted under load (docs/reliability.md, fault 1), with real processes:
 * a server process on a PostgreSQL cluster of the test's own, 50 clients reading the car list and
 * signing in, a car agent driven at full throttle. The postmaster is SIGKILLed (a crash or a
 * failover) and started again 5 s later. The server must stay up, answer every request quickly
 * (503 `errors.databaseUnavailable` with Retry-After while the database is away, never a 500),
 * say why in the operators' health details (GET /health on the metrics port), and serve everything again within 5 s of the database's return without
 * a restart; the car, which needs no database, is driven throughout and never falls to neutral.
 */
import type { ChildProcess } from 'node:child_process';
import { ERROR_KEYS } from '@telerace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../test/app.js';
import { type OwnPostgres, startOwnPostgres } from '../test/own-postgres.js';
import {
  addSimCar,
  freePort,
  holdFullThrottle,
  killProcess,
  lineAppears,
  logIn,
  startServerProcess,
} from '../test/process.js';

const ADMIN = { email: 'restart-admin@telerace.test', password: 'restart-admin-Passw0rd!' };
const CLIENTS = 50;
const SIGNING_IN = 5;
const OUTAGE_MS = 5_000;
const BOUNDS_MS = { answer: 5_000, recovery: 5_000 };

interface Answer {
  kind: 'cars' | 'login';
  startedAt: number;
  tookMs: number;
  status: number | 'no answer';
  errorKey?: string;
  retryAfter: string | null;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PostgreSQL killed and restarted under load', () => {
  let environment: TestEnvironment;
  let postgres: OwnPostgres;
  let metricsPort: number;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    postgres = await startOwnPostgres();
    metricsPort = await freePort();
    environment = await createTestEnvironment({
      DATABASE_URL: postgres.url,
      // The operators' health details, where the outage's reason is read.
      METRICS_PORT: String(metricsPort),
      // 50 clients on one address: the per-IP API limit is not what this test is about.
      API_RATE_LIMIT_PER_MINUTE: '1000000',
    });
  });
  afterAll(async () => {
    for (const child of children) await killProcess(child);
    await environment?.dispose();
    await postgres?.dispose();
  });

  it('stays up, refuses cleanly and quickly while the database is away, recovers within 5 s, and the car is driven throughout', async () => {
    const { server, base, port, adminToken } = await startServerProcess(environment.env, ADMIN);
    children.push(server);
    const { carId, agent } = await addSimCar(base, adminToken, 'Restart car');
    children.push(agent);
    await lineAppears(agent, /welcomed as car/);

    // The driver holds full throttle (every 100 ms, as the page does) until the car moves.
    const driver = await holdFullThrottle(base, port, carId, adminToken);
    const neutralLines: string[] = [];
    agent.stdout?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (/neutral \(/.test(line)) neutralLines.push(line);
    });

    const answers: Answer[] = [];
    let loading = true;
    const call = async (kind: Answer['kind']): Promise<void> => {
      const startedAt = performance.now();
      const request =
        kind === 'cars'
          ? fetch(`${base}/api/cars`, {
              headers: { authorization: `Bearer ${adminToken}` },
              signal: AbortSignal.timeout(15_000),
            })
          : fetch(`${base}/api/login`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ ...ADMIN, recaptchaToken: '' }),
              signal: AbortSignal.timeout(15_000),
            });
      try {
        const response = await request;
        const body = (await response.json()) as { errorKey?: string };
        answers.push({
          kind,
          startedAt,
          tookMs: performance.now() - startedAt,
          status: response.status,
          ...(body.errorKey ? { errorKey: body.errorKey } : {}),
          retryAfter: response.headers.get('retry-after'),
        });
      } catch {
        answers.push({
          kind,
          startedAt,
          tookMs: performance.now() - startedAt,
          status: 'no answer',
          retryAfter: null,
        });
      }
    };
    const clients = Array.from({ length: CLIENTS }, async (_, index) => {
      const kind = index < SIGNING_IN ? 'login' : 'cars';
      while (loading) {
        await call(kind);
        // A client that was refused waits a little, as a page would, instead of spinning.
        await wait(answers.at(-1)?.status === 200 ? 0 : 50);
      }
    });

    await wait(1_000);
    const killedAt = performance.now();
    await postgres.kill();
    await wait(1_000);
    const ready = await fetch(`${base}/api/ready`);
    const health = await fetch(`http://127.0.0.1:${metricsPort}/health`);
    const healthBody = (await health.json()) as { database?: { status: string; reason?: string } };
    await wait(killedAt + OUTAGE_MS - performance.now());
    await postgres.start();
    const restartedAt = performance.now();
    await wait(BOUNDS_MS.recovery + 2_000);
    loading = false;
    await Promise.all(clients);
    driver.stop();
    const readyAfter = await fetch(`${base}/api/ready`);
    const neutralWhileDriven = [...neutralLines];
    driver.socket.close();

    const outage = answers.filter((a) => a.startedAt > killedAt + 200 && a.startedAt < restartedAt);
    const firstFullSuccess = answers
      .filter((a) => a.startedAt > restartedAt && a.status === 200)
      .map((a) => a.startedAt - restartedAt)
      .sort((a, b) => a - b)[0];
    const afterRecovery = answers.filter((a) => a.startedAt > restartedAt + BOUNDS_MS.recovery);
    const slowest = Math.max(...answers.map((a) => a.tookMs));
    console.info(
      `database restart: ${answers.length} requests, ${outage.length} during the outage ` +
        `(${outage.filter((a) => a.status === 503).length} answered 503), slowest ${slowest.toFixed(0)} ms, ` +
        `first success ${firstFullSuccess?.toFixed(0)} ms after the database's return`,
    );

    expect(server.exitCode, 'the server process is still running').toBeNull();
    expect(answers.filter((a) => a.status === 'no answer' || a.status === 500)).toEqual([]);
    expect(slowest).toBeLessThan(BOUNDS_MS.answer);
    expect(outage.length).toBeGreaterThan(0);
    for (const answer of outage.filter((a) => a.status !== 200)) {
      expect(answer).toMatchObject({
        status: 503,
        errorKey: ERROR_KEYS.databaseUnavailable,
        retryAfter: expect.stringMatching(/^\d+$/),
      });
    }
    expect(ready.status).toBe(503);
    expect(health.status).toBe(200);
    expect(healthBody.database).toMatchObject({ status: 'unreachable', reason: expect.any(String) });
    expect(afterRecovery.length).toBeGreaterThan(0);
    expect(afterRecovery.filter((a) => a.status !== 200)).toEqual([]);
    expect(readyAfter.status).toBe(200);
    // Signing in works again with the session stored in the restarted database.
    await expect(logIn(base, ADMIN)).resolves.toEqual(expect.any(String));
    expect(neutralWhileDriven, 'the car never fell to neutral').toEqual([]);
  }, 120_000);
});
