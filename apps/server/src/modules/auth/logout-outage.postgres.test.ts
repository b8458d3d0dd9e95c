/**
 * Log-out while PostgreSQL is away (issue 39): on a cluster of the test's own, killed (SIGKILL to
 * the postmaster) and started again. The log-out clears the session cookie whatever happens and
 * says the revocation waits (202 `recorded: false`); once the database is back, the same refresh
 * cookie renews nothing, and the held log-out is written by the retry without any request.
 */
import { ERROR_KEYS } from '@telerace/protocol';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshTokens } from '../../db/schema.js';
import { buildTestApp, createTestEnvironment, type TestApp, type TestEnvironment } from '../../test/app.js';
import { refresh, refreshCookieOf } from '../../test/auth.js';
import { ManualClock } from '../../test/clock.js';
import { buildSession, buildUser } from '../../test/factories.js';
import { type OwnPostgres, startOwnPostgres } from '../../test/own-postgres.js';
import { REFRESH_COOKIE } from './auth.routes.js';
import { MESSAGES } from './auth.service.js';
import { PENDING_LOGOUTS_RETRY_MS } from './pending-logouts.js';

describe('log-out while the database is away', () => {
  const clock = new ManualClock();
  let postgres: OwnPostgres;
  let environment: TestEnvironment;
  let testApp: TestApp;

  beforeAll(async () => {
    postgres = await startOwnPostgres();
    environment = await createTestEnvironment({ DATABASE_URL: postgres.url });
    testApp = await buildTestApp(environment, { clock });
  }, 120_000);
  afterAll(async () => {
    await testApp?.app.close();
    await environment?.dispose();
    await postgres?.dispose();
  });

  /** A member's session, then the database killed and the member logging out meanwhile. */
  async function logOutDuringOutage() {
    const { app } = testApp;
    const member = await buildUser(app.database.db);
    const session = await buildSession(app.database.db, member);
    const revoked: string[] = [];
    const off = app.events.on('session.revoked', ({ sessionId }) => revoked.push(sessionId));
    await postgres.kill();
    const logout = await app.inject({
      method: 'POST',
      url: '/api/logout',
      cookies: { [REFRESH_COOKIE]: session.token },
    });
    expect(revoked).toEqual([]);
    await postgres.start();
    await expect
      .poll(
        () =>
          app.database.ping().then(
            () => true,
            () => false,
          ),
        { timeout: 10_000 },
      )
      .toBe(true);
    return { session, logout, revoked, off };
  }

  const revokedAt = async (familyId: string) => {
    const rows = await testApp.app.database.db
      .select({ revokedAt: refreshTokens.revokedAt })
      .from(refreshTokens)
      .where(eq(refreshTokens.familyId, familyId));
    return rows.map((row) => row.revokedAt);
  };

  it('clears the cookie, says it is not recorded yet, and the cookie renews nothing once the database is back', async () => {
    const { session, logout, revoked, off } = await logOutDuringOutage();
    const renewed = await refresh(testApp.app, session.token);
    expect(renewed.statusCode).toBe(401);
    expect(renewed.json().errorKey).toBe(ERROR_KEYS.sessionExpired);
    expect(await revokedAt(session.familyId)).not.toContain(null);
    // Its sockets close now, on every instance.
    expect(revoked).toEqual([session.familyId]);

    expect(refreshCookieOf(logout)?.value).toBe('');
    expect(logout.statusCode).toBe(202);
    expect(logout.json()).toEqual({ message: MESSAGES.loggedOutPending, recorded: false });
    off();
  });

  it('writes the held log-out when the database is back, with no request asking', async () => {
    const { session, revoked, off } = await logOutDuringOutage();
    expect(await revokedAt(session.familyId)).toEqual([null]);
    clock.advance(PENDING_LOGOUTS_RETRY_MS);
    await expect.poll(() => revokedAt(session.familyId)).not.toContain(null);
    expect(revoked).toEqual([session.familyId]);
    off();
  });
});
