import { asc, eq, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/client.js';
import { auditLog, loginHistory, refreshTokens, ticketLedger, users } from '../../db/schema.js';
import type { DomainEvents } from '../../events.js';
import type { UserRow } from '../../kernel/users.repo.js';
import { startTestApp } from '../../test/app.js';
import { authHeader, buildAdmin, buildSession, buildUser } from '../../test/factories.js';

type Method = 'GET' | 'POST' | 'DELETE';

describe('admin users (/api/admin…)', () => {
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  let db: Db;
  let admin: UserRow;
  let adminHeaders: { authorization: string };
  beforeAll(async () => {
    testApp = await startTestApp();
    db = testApp.app.database.db;
    admin = await buildAdmin(db);
    adminHeaders = await authHeader(testApp.app, admin);
  });
  afterAll(() => testApp.close());

  const asAdmin = (method: Method, url: string, payload?: object) =>
    testApp.app.inject({ method, url, headers: adminHeaders, ...(payload ? { payload } : {}) });
  const auditFor = (targetId: number) =>
    db
      .select()
      .from(auditLog)
      .where(eq(auditLog.targetId, String(targetId)))
      .orderBy(asc(auditLog.id));
  const rowOf = async (id: number) => (await db.select().from(users).where(eq(users.id, id)))[0];

  describe('access', () => {
    const endpoints: [Method, string, object?][] = [
      ['GET', '/api/admin/users'],
      ['GET', '/api/admin/logins'],
      ['POST', '/api/admin/users/1/ban', { ban: true }],
      ['POST', '/api/admin/users/1/toggle-admin', { makeAdmin: true }],
      ['POST', '/api/admin/users/1/adjust-tickets', { amount: 5 }],
      ['DELETE', '/api/admin/users/1'],
    ];

    it.each(endpoints)(
      '%s %s refuses anonymous callers (401) and members (403)',
      async (method, url, payload) => {
        const anonymous = await testApp.app.inject({ method, url, ...(payload ? { payload } : {}) });
        expect(anonymous.statusCode).toBe(401);
        expect(anonymous.json().errorKey).toBe('errors.unauthorized');
        const member = await buildUser(db);
        const headers = await authHeader(testApp.app, member);
        const forbidden = await testApp.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
        expect(forbidden.statusCode).toBe(403);
        expect(forbidden.json().errorKey).toBe('errors.forbidden');
      },
    );
  });

  describe('GET /users', () => {
    it('pages live members by id with their tickets and the total count', async () => {
      await buildUser(db, { twitchId: `tw-${Math.random()}` });
      const gone = await buildUser(db);
      expect((await asAdmin('DELETE', `/api/admin/users/${gone.id}`)).statusCode).toBe(200);
      for (let i = 0; i < 12; i += 1) await buildUser(db);
      const live = await db
        .select({ id: users.id })
        .from(users)
        .where(isNull(users.deletedAt))
        .orderBy(users.id);

      const first = await asAdmin('GET', '/api/admin/users?limit=10');
      expect(first.statusCode).toBe(200);
      const body = first.json();
      expect(body.totalCount).toBe(live.length);
      expect(body.users.map((u: { id: number }) => u.id)).toEqual(live.slice(0, 10).map((r) => r.id));
      const second = (await asAdmin('GET', '/api/admin/users?page=2&limit=10')).json();
      expect(second.users.map((u: { id: number }) => u.id)).toEqual(live.slice(10, 20).map((r) => r.id));
      const all = (await asAdmin('GET', '/api/admin/users?limit=100')).json();
      expect(all.users.some((u: { id: number }) => u.id === gone.id)).toBe(false);
      const linked = all.users.find((u: { twitch_id: string | null }) => u.twitch_id !== null);
      expect(linked).toMatchObject({ tickets: 125, ticket_adjustment: 0 });
      expect(JSON.stringify(all)).not.toContain('argon2');
    });

    it('defaults to 25 per page', async () => {
      const body = (await asAdmin('GET', '/api/admin/users')).json();
      expect(body.users.length).toBe(Math.min(25, body.totalCount));
    });

    it.each([10, 25, 50, 100])('accepts a page size of %s', async (limit) => {
      expect((await asAdmin('GET', `/api/admin/users?limit=${limit}`)).statusCode).toBe(200);
      expect((await asAdmin('GET', `/api/admin/logins?limit=${limit}`)).statusCode).toBe(200);
    });

    it.each(['limit=7', 'limit=abc', 'page=0', 'page=-1'])(
      'refuses %s, naming the parameter',
      async (query) => {
        for (const path of ['/api/admin/users', '/api/admin/logins']) {
          const response = await asAdmin('GET', `${path}?${query}`);
          expect(response.statusCode).toBe(400);
          expect(response.json().errorKey).toBe('errors.validation');
          expect(response.json().error).toContain(`query.${query.split('=')[0]}`);
        }
      },
    );
  });

  describe('GET /logins', () => {
    it('lists logins newest first with the username and total count', async () => {
      const driver = await buildUser(db);
      const base = Date.now() + 60_000; // newer than anything else in this database
      await db.insert(loginHistory).values([
        { userId: driver.id, ip: '198.51.100.1', createdAt: new Date(base) },
        { userId: driver.id, ip: '198.51.100.3', createdAt: new Date(base + 2000) },
        { userId: admin.id, ip: '198.51.100.2', createdAt: new Date(base + 1000) },
      ]);
      const [total] = await db.select({ n: sql<number>`count(*)::int` }).from(loginHistory);
      const body = (await asAdmin('GET', '/api/admin/logins?limit=10')).json();
      expect(body.totalCount).toBe(total?.n);
      expect(body.logins.slice(0, 3)).toEqual([
        {
          id: expect.any(Number),
          created_at: new Date(base + 2000).toISOString(),
          username: driver.username,
          ip: '198.51.100.3',
        },
        {
          id: expect.any(Number),
          created_at: new Date(base + 1000).toISOString(),
          username: admin.username,
          ip: '198.51.100.2',
        },
        {
          id: expect.any(Number),
          created_at: new Date(base).toISOString(),
          username: driver.username,
          ip: '198.51.100.1',
        },
      ]);
    });
  });

  describe('POST /users/:id/ban', () => {
    it('bans at once (token refused, sessions revoked), and unban lets the member back in', async () => {
      const driver = await buildUser(db);
      const driverHeaders = await authHeader(testApp.app, driver);
      const session = await buildSession(db, driver);
      const events: DomainEvents['user.sessions-revoked'][] = [];
      const off = testApp.app.events.on('user.sessions-revoked', (event) => events.push(event));

      const banned = await asAdmin('POST', `/api/admin/users/${driver.id}/ban`, { ban: true });
      off();
      expect(banned.statusCode).toBe(200);
      expect(banned.json().user).toMatchObject({ id: driver.id, is_banned: true, tickets: 100 });
      expect(events).toEqual([{ userId: driver.id, reason: 'banned' }]);
      const refused = await testApp.app.inject({ url: '/api/me', headers: driverHeaders });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().errorKey).toBe('errors.banned');
      const tokens = await db
        .select()
        .from(refreshTokens)
        .where(eq(refreshTokens.familyId, session.familyId));
      expect(tokens.every((t) => t.revokedAt !== null)).toBe(true);

      const unbanned = await asAdmin('POST', `/api/admin/users/${driver.id}/ban`, { ban: false });
      expect(unbanned.json().user.is_banned).toBe(false);
      expect((await testApp.app.inject({ url: '/api/me', headers: driverHeaders })).statusCode).toBe(200);

      const audit = await auditFor(driver.id);
      expect(audit.map((a) => [a.action, a.before, a.after])).toEqual([
        ['user.ban', { is_banned: false }, { is_banned: true }],
        ['user.unban', { is_banned: true }, { is_banned: false }],
      ]);
      expect(audit[0]).toMatchObject({
        actorId: admin.id,
        actorUsername: admin.username,
        targetType: 'user',
      });
    });

    it('refuses the admin’s own account and unknown or deleted members', async () => {
      const self = await asAdmin('POST', `/api/admin/users/${admin.id}/ban`, { ban: true });
      expect(self.statusCode).toBe(400);
      expect(self.json().errorKey).toBe('errors.cannotActOnSelf');
      const unknown = await asAdmin('POST', '/api/admin/users/999999/ban', { ban: true });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().errorKey).toBe('errors.userNotFound');
      const gone = await buildUser(db);
      await asAdmin('DELETE', `/api/admin/users/${gone.id}`);
      expect((await asAdmin('POST', `/api/admin/users/${gone.id}/ban`, { ban: true })).statusCode).toBe(404);
      expect((await asAdmin('POST', '/api/admin/users/abc/ban', { ban: true })).statusCode).toBe(400);
    });
  });

  describe('POST /users/:id/toggle-admin', () => {
    it('grants and revokes the admin role, audited', async () => {
      const driver = await buildUser(db);
      const driverHeaders = await authHeader(testApp.app, driver);
      const granted = await asAdmin('POST', `/api/admin/users/${driver.id}/toggle-admin`, {
        makeAdmin: true,
      });
      expect(granted.statusCode).toBe(200);
      expect(granted.json().user.is_admin).toBe(true);
      expect((await testApp.app.inject({ url: '/api/admin/users', headers: driverHeaders })).statusCode).toBe(
        200,
      );
      const revoked = await asAdmin('POST', `/api/admin/users/${driver.id}/toggle-admin`, {
        makeAdmin: false,
      });
      expect(revoked.json().user.is_admin).toBe(false);
      expect((await testApp.app.inject({ url: '/api/admin/users', headers: driverHeaders })).statusCode).toBe(
        403,
      );
      expect((await auditFor(driver.id)).map((a) => [a.action, a.before, a.after])).toEqual([
        ['user.grant-admin', { is_admin: false }, { is_admin: true }],
        ['user.revoke-admin', { is_admin: true }, { is_admin: false }],
      ]);
    });

    it('refuses to remove one’s own admin role', async () => {
      const response = await asAdmin('POST', `/api/admin/users/${admin.id}/toggle-admin`, {
        makeAdmin: false,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        error: 'You cannot remove your own admin role.',
        errorKey: 'errors.cannotRemoveOwnAdmin',
      });
      expect((await rowOf(admin.id))?.isAdmin).toBe(true);
      expect(await auditFor(admin.id)).toEqual([]);
    });
  });

  describe('POST /users/:id/adjust-tickets', () => {
    const adjust = (id: number, payload: object) =>
      asAdmin('POST', `/api/admin/users/${id}/adjust-tickets`, payload);

    it('adds and subtracts tickets, audited with the totals before and after', async () => {
      const driver = await buildUser(db);
      const plus = await adjust(driver.id, { amount: 40 });
      expect(plus.statusCode).toBe(200);
      expect(plus.json().user).toMatchObject({ id: driver.id, tickets: 140, ticket_adjustment: 40 });
      const minus = await adjust(driver.id, { amount: -70 });
      expect(minus.json().user).toMatchObject({ tickets: 70, ticket_adjustment: -30 });
      const audit = await auditFor(driver.id);
      expect(audit.map((a) => [a.action, a.before, a.after])).toEqual([
        [
          'user.adjust-tickets',
          { tickets: 100, ticket_adjustment: 0 },
          { tickets: 140, ticket_adjustment: 40, amount: 40 },
        ],
        [
          'user.adjust-tickets',
          { tickets: 140, ticket_adjustment: 40 },
          { tickets: 70, ticket_adjustment: -30, amount: -70 },
        ],
      ]);
      const ledger = await db.select().from(ticketLedger).where(eq(ticketLedger.userId, driver.id));
      expect(ledger.map((l) => [l.kind, l.amount])).toEqual([
        ['adjustment', 40],
        ['adjustment', -70],
      ]);
      expect(ledger.every((l) => l.sourceId.startsWith('adjustment:'))).toBe(true);
    });

    it('refuses zero and non-integers', async () => {
      const driver = await buildUser(db);
      for (const amount of [0, 1.5, '10']) {
        const response = await adjust(driver.id, { amount });
        expect(response.statusCode).toBe(400);
        expect(response.json().error).toContain('body.amount');
      }
      expect((await adjust(999999, { amount: 1 })).statusCode).toBe(404);
    });

    it('adds once for a repeated requestId, and publishes the fact once', async () => {
      const driver = await buildUser(db);
      const facts: DomainEvents['tickets.adjusted'][] = [];
      const off = testApp.app.events.on('tickets.adjusted', (event) => facts.push(event));
      const requestId = `req-${crypto.randomUUID()}`;
      expect((await adjust(driver.id, { amount: 10, requestId })).json().user.tickets).toBe(110);
      const again = await adjust(driver.id, { amount: 10, requestId });
      off();
      expect(again.statusCode).toBe(200);
      expect(again.json().user.tickets).toBe(110);
      expect(await auditFor(driver.id)).toHaveLength(1);
      expect(facts).toEqual([{ userId: driver.id, amount: 10, tickets: 110 }]);
    });

    it('clamps the total at 0 and 500 while keeping the adjustment sum', async () => {
      const driver = await buildUser(db);
      expect((await adjust(driver.id, { amount: -500 })).json().user).toMatchObject({
        tickets: 0,
        ticket_adjustment: -500,
      });
      expect((await adjust(driver.id, { amount: 1000 })).json().user).toMatchObject({
        tickets: 500,
        ticket_adjustment: 500,
      });
    });
  });

  describe('DELETE /users/:id', () => {
    it('deletes another member’s personal data, audited without it', async () => {
      const driver = await buildUser(db, { bio: 'hello', twitchId: `tw-${Math.random()}` });
      const driverHeaders = await authHeader(testApp.app, driver);
      await buildSession(db, driver);
      await db.insert(loginHistory).values({ userId: driver.id, ip: '192.0.2.7' });
      await db
        .insert(ticketLedger)
        .values({ userId: driver.id, kind: 'adjustment', amount: 3, sourceId: `x-${driver.id}` });

      const response = await asAdmin('DELETE', `/api/admin/users/${driver.id}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ message: 'The account was deleted.' });
      expect(await rowOf(driver.id)).toMatchObject({
        username: `Deleted driver#${driver.id}`,
        email: null,
        passwordHash: null,
        bio: '',
        twitchId: null,
      });
      for (const table of [ticketLedger, loginHistory, refreshTokens]) {
        expect(await db.select().from(table).where(eq(table.userId, driver.id))).toEqual([]);
      }
      expect((await testApp.app.inject({ url: '/api/me', headers: driverHeaders })).statusCode).toBe(401);
      const audit = await auditFor(driver.id);
      expect(audit.map((a) => [a.action, a.before, a.after])).toEqual([
        [
          'user.delete',
          { username: driver.username, is_admin: false, is_banned: false },
          { username: `Deleted driver#${driver.id}`, deleted: true },
        ],
      ]);
      expect(JSON.stringify(audit)).not.toContain(driver.email ?? '@');
      expect((await asAdmin('DELETE', `/api/admin/users/${driver.id}`)).statusCode).toBe(404);
    });

    it('refuses the admin’s own account', async () => {
      const response = await asAdmin('DELETE', `/api/admin/users/${admin.id}`);
      expect(response.statusCode).toBe(400);
      expect(response.json().errorKey).toBe('errors.cannotActOnSelf');
      expect((await rowOf(admin.id))?.deletedAt).toBeNull();
    });
  });

  describe('audit log', () => {
    it('is append-only: UPDATE and DELETE are refused by the database', async () => {
      const driver = await buildUser(db);
      await asAdmin('POST', `/api/admin/users/${driver.id}/ban`, { ban: true });
      const [entry] = await auditFor(driver.id);
      expect(entry).toBeDefined();
      await expect(
        db.execute(sql`update audit_log set action = 'x' where id = ${entry?.id}`),
      ).rejects.toThrow();
      await expect(db.execute(sql`delete from audit_log where id = ${entry?.id}`)).rejects.toThrow();
      await expect(db.execute(sql`delete from audit_log`)).rejects.toThrow();
      expect(await auditFor(driver.id)).toHaveLength(1);
    });

    it('is not written when the action fails', async () => {
      const before = await db.select({ n: sql<number>`count(*)::int` }).from(auditLog);
      await asAdmin('POST', `/api/admin/users/${admin.id}/ban`, { ban: true });
      await asAdmin('POST', '/api/admin/users/999999/toggle-admin', { makeAdmin: true });
      expect(await db.select({ n: sql<number>`count(*)::int` }).from(auditLog)).toEqual(before);
    });
  });
});
