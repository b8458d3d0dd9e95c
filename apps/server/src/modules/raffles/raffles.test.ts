/**
 * Raffles through the real API (PGlite and PostgreSQL): open, entries, the draw (seed revealed,
 * prizes, the winners' lobby, raffle_status on the event socket), abort, clearing pending prizes,
 * the public JSON checked by the verifier, audits, admin-only calls, prize claims (20 at once →
 * exactly one), and what a restart keeps. Time is the test's (ManualClock).
 */
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import {
  type AdminRaffleResponse,
  ERROR_KEYS,
  RAFFLE_BASE_WEIGHT,
  type RaffleRecord,
  type RaffleSummary,
  verifyRaffleRecord,
} from '@telerace/protocol';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { auditLog, users } from '../../db/schema.js';
import { updateUser } from '../../kernel/users.repo.js';
import { authHeader, buildAdmin, buildUser, tokenFor } from '../../test/factories.js';
import { useRestartableApps } from '../../test/restartable-app.js';
import {
  connectCar,
  createCar,
  eventsUrl,
  listen,
  openSocket,
  originOf,
  takeCar,
} from '../../test/sockets.js';
import { OPEN_MAX_AGE_MS, REMAKE_MIN_MS } from './published-raffles.js';

type Json = Record<string, unknown>;

const apps = useRestartableApps();
const boot = (persistentDatabase = false) => apps.boot(persistentDatabase);
const stopServer = (app: FastifyInstance) => apps.stop(app);

/** The app, an admin's calls, and the anonymous public calls. */
async function setup(persistentDatabase = false) {
  const app = await boot(persistentDatabase);
  const admin = await buildAdmin(app.database.db);
  // A token of the clock's now on each call, as the admin's page refreshes its own: tests move
  // the clock past an access token's lifetime.
  const call = async (method: 'GET' | 'POST', url: string, payload?: Json) =>
    app.inject({ method, url, headers: await authHeader(app, admin), ...(payload ? { payload } : {}) });
  const adminCall = async (url: string, payload?: Json) => {
    const response = await call('POST', url, payload ?? {});
    return { status: response.statusCode, body: response.json() as AdminRaffleResponse & Json };
  };
  const enter = (platform: string, platformUserId: string, displayName = platformUserId) =>
    adminCall('/api/admin/race/raffle-entries', { platform, platformUserId, displayName });
  const publicRaffle = async (path: string) => {
    const response = await app.inject({ method: 'GET', url: `/api/raffles/${path}` });
    return { status: response.statusCode, body: response.json() as RaffleSummary & Json };
  };
  /** The whole published record (what the verifier reads). */
  const record = async (id: number) =>
    (await app.inject({ method: 'GET', url: `/api/raffles/${id}/record` })).json() as RaffleRecord;
  return { app, admin, call, adminCall, enter, publicRaffle, record };
}

const audits = async (app: FastifyInstance) =>
  // In the order they were written: without ORDER BY, PostgreSQL may give rows in any order.
  (
    await app.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.targetType, 'raffle'))
      .orderBy(auditLog.id)
  ).map((row) => ({
    action: row.action,
    targetId: row.targetId,
    after: row.after as Json,
  }));

describe('a raffle from its opening to its winners', () => {
  it('start → entries → draw: seed revealed, prizes, the winners lobby, raffle_status on the event socket', async () => {
    const { app, admin, adminCall, enter, publicRaffle, record } = await setup();
    const host = await listen(app);
    const viewer = await buildUser(app.database.db);
    const events = await openSocket(eventsUrl(host, await tokenFor(app, viewer)), originOf(app));
    apps.sockets.push(events);
    const raceState = (predicate: (s: Json) => boolean) =>
      events
        .next((m) => m.type === 'race_state_update' && predicate(m.payload as Json))
        .then((m) => m.payload as Json);

    expect(await publicRaffle('current')).toMatchObject({
      status: 404,
      body: { errorKey: ERROR_KEYS.raffleNotFound },
    });
    expect(
      (
        await app.inject({ method: 'GET', url: '/api/admin/raffle', headers: await authHeader(app, admin) })
      ).json(),
    ).toEqual({
      raffle: null,
      prizes: [],
    });

    // Open: the commitment is published, the seed is not.
    const opened = await adminCall('/api/admin/race/start-raffle', { racers: 2 });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const raffle = opened.body.raffle as RaffleSummary;
    expect(raffle).toMatchObject({
      status: 'open',
      racers: 2,
      entryCount: 0,
      totalWeight: 0,
      entriesByPlatform: { twitch: 0, youtube: 0, discord: 0 },
      winners: [],
    });
    expect(raffle.commitment).toMatch(/^[0-9a-f]{64}$/);
    expect(raffle).not.toHaveProperty('seed');
    expect(raffle).not.toHaveProperty('entriesHash');
    expect(await raceState((s) => s.raffle_status === 'open')).toMatchObject({ race_status: 'idle' });
    expect(app.race.state().raffle_status).toBe('open');

    // A second raffle while one is open: refused.
    expect(await adminCall('/api/admin/race/start-raffle', { racers: 1 })).toMatchObject({
      status: 409,
      body: { errorKey: ERROR_KEYS.raffleAlreadyOpen },
    });

    // Entries: a member's linked Twitch account weighs its tickets; chat users without an account weigh the base.
    const linked = await buildUser(app.database.db, { twitchId: 'tw-linked' });
    const linkedTickets = (await app.tickets.forUser(linked.id))?.tickets as number;
    await buildUser(app.database.db, { youtubeId: 'yt-banned', isBanned: true });
    expect((await enter('twitch', 'tw-linked', 'Linked')).status).toBe(200);
    expect((await enter('discord', 'dc-chatter', 'Chatter')).status).toBe(200);
    const third = await enter('youtube', 'UC-viewer', 'Viewer');
    expect(third.body.raffle?.entryCount).toBe(3);
    // Idempotent: the same identity again changes nothing (even with another display name); the
    // admin is told it was already in.
    const again = await enter('twitch', 'tw-linked', 'Renamed');
    expect(again).toMatchObject({ status: 409, body: { errorKey: ERROR_KEYS.raffleAlreadyEntered } });
    expect((await publicRaffle('current')).body.entryCount).toBe(3);
    // A banned account's identity is refused.
    expect(await enter('youtube', 'yt-banned')).toMatchObject({
      status: 403,
      body: { errorKey: ERROR_KEYS.raffleEntryRefused },
    });

    // The public JSON while open: the weights as they are now, still no seed.
    const open = await publicRaffle('current');
    expect(open.status).toBe(200);
    expect(open.body).not.toHaveProperty('seed');
    expect(open.body).not.toHaveProperty('claimUntil');
    expect(open.body.entryCount).toBe(3);
    // What the admin's draw confirmation and claim warning read (issue 41 points 2 and 9).
    expect(open.body).toMatchObject({
      totalWeight: linkedTickets + 2 * RAFFLE_BASE_WEIGHT,
      entriesByPlatform: { twitch: 1, youtube: 1, discord: 1 },
    });
    expect((await record(open.body.id)).entries).toEqual([
      {
        platform: 'discord',
        platformUserId: 'dc-chatter',
        displayName: 'Chatter',
        weight: RAFFLE_BASE_WEIGHT,
      },
      { platform: 'twitch', platformUserId: 'tw-linked', displayName: 'Linked', weight: linkedTickets },
      { platform: 'youtube', platformUserId: 'UC-viewer', displayName: 'Viewer', weight: RAFFLE_BASE_WEIGHT },
    ]);

    // The draw.
    const drawnAt = apps.clock.now();
    const drawn = await adminCall('/api/admin/race/draw-winners');
    expect(drawn.status, JSON.stringify(drawn.body)).toBe(200);
    const result = drawn.body.raffle as RaffleSummary;
    expect(result.status).toBe('drawn');
    expect(result.seed).toMatch(/^[0-9a-f]{64}$/);
    expect(
      createHash('sha256')
        .update(Buffer.from(result.seed as string, 'hex'))
        .digest('hex'),
    ).toBe(raffle.commitment);
    expect(result.commitment).toBe(raffle.commitment);
    expect(result.entriesHash).toMatch(/^[0-9a-f]{64}$/);
    expect(result.drawnAt).toBe(drawnAt.toISOString());
    // The raffle page counts down to it (issue 41 point 3): PRIZE_CLAIM_MINUTES after the draw.
    expect(result.claimUntil).toBe(new Date(drawnAt.getTime() + 15 * 60_000).toISOString());
    expect(result.winners).toHaveLength(2);
    expect(new Set(result.winners.map((w) => w.platformUserId)).size).toBe(2);
    expect(drawn.body.prizes.map((p) => ({ rank: p.rank, state: p.state, expiresAt: p.expiresAt }))).toEqual(
      [1, 2].map((rank) => ({
        rank,
        state: 'pending',
        expiresAt: new Date(drawnAt.getTime() + 15 * 60_000).toISOString(),
      })),
    );
    expect(drawn.body.prizes.map((p) => p.platformUserId)).toEqual(
      result.winners.map((w) => w.platformUserId),
    );

    // The public summary is the admin's; the record checks out with the verifier.
    const published = await publicRaffle(String(result.id));
    expect(published.body).toEqual(result);
    const drawnRecord = await record(result.id);
    expect(drawnRecord).toEqual({ ...result, entries: expect.any(Array) });
    expect(drawnRecord.entries).toHaveLength(3);
    expect(await verifyRaffleRecord(drawnRecord)).toMatchObject({ ok: true });

    // The race: raffle closed, an empty lobby open for the winners.
    const lobby = await raceState((s) => s.race_status === 'lobby');
    expect(lobby).toMatchObject({ raffle_status: 'closed', totalParticipants: 0, participants: [] });
    expect(app.race.state()).toMatchObject({ race_status: 'lobby', raffle_status: 'closed' });

    // Closed: no draw, abort or entry any more.
    for (const url of ['/api/admin/race/draw-winners', '/api/admin/race/abort-raffle'])
      expect(await adminCall(url)).toMatchObject({
        status: 409,
        body: { errorKey: ERROR_KEYS.raffleNotOpen },
      });
    expect(await enter('discord', 'dc-late')).toMatchObject({
      status: 409,
      body: { errorKey: ERROR_KEYS.raffleNotOpen },
    });
    await expect(
      app.raffles.enter({ platform: 'discord', platformUserId: 'dc-late', displayName: 'Late' }),
    ).rejects.toMatchObject({ kind: 'conflict', errorKey: ERROR_KEYS.raffleNotOpen });

    // Every admin change is audited, in its transaction, against the raffle.
    const id = String(result.id);
    expect(await audits(app)).toEqual([
      { action: 'raffle.start', targetId: id, after: { racers: 2, commitment: raffle.commitment } },
      ...['tw-linked', 'dc-chatter', 'UC-viewer'].map((platformUserId) =>
        expect.objectContaining({
          action: 'raffle.add-entry',
          targetId: id,
          after: expect.objectContaining({ platformUserId }),
        }),
      ),
      {
        action: 'raffle.draw',
        targetId: id,
        after: {
          entries: 3,
          entriesHash: result.entriesHash,
          seed: result.seed,
          winners: result.winners.map((w) => `${w.platform}:${w.platformUserId}`),
          merged: [],
          dropped: [],
        },
      },
    ]);
  });

  it('a winner who claims their car joins the lobby the draw opened (an empty one is not discarded)', async () => {
    const { app, adminCall, enter } = await setup();
    const host = await listen(app);
    await adminCall('/api/admin/race/start-raffle', { racers: 1 });
    await enter('twitch', 'tw-winner');
    await adminCall('/api/admin/race/draw-winners');
    const raceId = app.race.state().race_id;
    expect(raceId).not.toBeNull();

    const driving = await createCar(app, 'Red');
    apps.sockets.push(await connectCar(host, driving.carId, driving.secret));
    const { driver } = await takeCar(
      app,
      driving,
      await buildUser(app.database.db, { twitchId: 'tw-winner' }),
    );
    await app.race.run('join_lobby', { userId: driver.id, carId: driving.carId });
    expect(app.race.state()).toMatchObject({
      race_id: raceId,
      race_status: 'lobby',
      totalParticipants: 1,
    });
  });

  it('a linked account banned after entering is dropped from the draw; weights are at least 1', async () => {
    const { app, adminCall, enter, record } = await setup();
    await adminCall('/api/admin/race/start-raffle', { racers: 5 });
    const later = await buildUser(app.database.db, { discordId: 'dc-later-banned' });
    const poor = await buildUser(app.database.db, { youtubeId: 'UC-poor' });
    // An admin took every ticket away: the entry still weighs 1.
    await app.tickets.add({ userId: poor.id, kind: 'adjustment', amount: -10_000, sourceId: 'test-poor' });
    await enter('discord', 'dc-later-banned');
    await enter('youtube', 'UC-poor');
    await enter('twitch', 'tw-chat');
    await app.database.db.update(users).set({ isBanned: true }).where(eq(users.id, later.id));

    const drawn = await adminCall('/api/admin/race/draw-winners');
    const raffle = await record(drawn.body.raffle?.id as number);
    expect(raffle.entries.map((e) => [e.platformUserId, e.weight])).toEqual([
      ['tw-chat', RAFFLE_BASE_WEIGHT],
      ['UC-poor', 1],
    ]);
    expect(raffle.winners).toHaveLength(2);
    expect((await verifyRaffleRecord(raffle)).ok).toBe(true);
    expect((await audits(app)).find((a) => a.action === 'raffle.draw')?.after.dropped).toEqual([
      'discord:dc-later-banned',
    ]);
  });

  it('abort closes without winners; a new raffle may open after it', async () => {
    const { app, adminCall, enter, publicRaffle } = await setup();
    expect(await adminCall('/api/admin/race/abort-raffle')).toMatchObject({
      status: 409,
      body: { errorKey: ERROR_KEYS.raffleNotOpen },
    });
    const first = (await adminCall('/api/admin/race/start-raffle', {})).body.raffle as RaffleSummary;
    expect(first.racers).toBe(2);
    await enter('twitch', 'tw-1');
    const aborted = await adminCall('/api/admin/race/abort-raffle');
    expect(aborted.status).toBe(200);
    expect(aborted.body.raffle).toMatchObject({ id: first.id, status: 'aborted', winners: [] });
    expect(aborted.body.raffle).not.toHaveProperty('seed');
    expect(aborted.body.prizes).toEqual([]);
    expect(app.race.state()).toMatchObject({ race_status: 'idle', raffle_status: 'closed' });
    expect((await audits(app)).at(-1)).toEqual({
      action: 'raffle.abort',
      targetId: String(first.id),
      after: { entries: 1 },
    });

    const second = await adminCall('/api/admin/race/start-raffle', { racers: 3 });
    expect(second.status).toBe(200);
    expect(second.body.raffle).toMatchObject({ status: 'open', racers: 3, entryCount: 0 });
    expect((await publicRaffle(String(first.id))).body.status).toBe('aborted');
  });
});

describe('one account, one entry', () => {
  it("an account's identities on three platforms enter once, weigh its total once and win one place at most", async () => {
    const { app, adminCall, enter } = await setup();
    const member = await buildUser(app.database.db, {
      twitchId: 'tw-multi',
      discordId: 'dc-multi',
      youtubeId: 'yt-multi',
    });
    const memberTickets = (await app.tickets.forUser(member.id))?.tickets as number;
    await adminCall('/api/admin/race/start-raffle', { racers: 3 });
    const join = (platform: 'twitch' | 'discord' | 'youtube', platformUserId: string) =>
      app.raffles.enter({ platform, platformUserId, displayName: `${platform} ${platformUserId}` });
    apps.clock.advance(1);
    expect(await join('discord', 'dc-multi')).toMatchObject({ entered: true });
    apps.clock.advance(1);
    // The same account again from another platform: already in (the bots answer so).
    expect(await join('twitch', 'tw-multi')).toMatchObject({ entered: false });
    expect(await join('youtube', 'yt-multi')).toMatchObject({ entered: false });
    // An admin adding it by hand is told it is already in.
    expect(await enter('youtube', 'yt-multi')).toMatchObject({
      status: 409,
      body: { errorKey: ERROR_KEYS.raffleAlreadyEntered },
    });
    expect((await enter('twitch', 'tw-other')).status).toBe(200);

    const drawn = await adminCall('/api/admin/race/draw-winners');
    expect(drawn.status, JSON.stringify(drawn.body)).toBe(200);
    const draw = (await audits(app)).find((a) => a.action === 'raffle.draw');
    expect(draw?.after).toMatchObject({ entries: 2, merged: [] });
    const winners = drawn.body.raffle?.winners.map((w) => `${w.platform}:${w.platformUserId}`);
    expect(winners?.sort()).toEqual(['discord:dc-multi', 'twitch:tw-other']);
    const record = (
      await app.inject({ method: 'GET', url: `/api/raffles/${drawn.body.raffle?.id}/record` })
    ).json();
    expect(record.entries).toEqual([
      {
        platform: 'discord',
        platformUserId: 'dc-multi',
        displayName: 'discord dc-multi',
        weight: memberTickets,
      },
      { platform: 'twitch', platformUserId: 'tw-other', displayName: 'tw-other', weight: RAFFLE_BASE_WEIGHT },
    ]);
    expect(await verifyRaffleRecord(record)).toMatchObject({ ok: true });
  });
});

describe('the public answers (prepared once, made again only when they change)', () => {
  it('an ETag and a 304, the bytes compressed once, pages of entries, and no raffle: 404', async () => {
    const { app, adminCall, enter } = await setup();
    const get = (url: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'GET', url: `/api/raffles/${url}`, headers });
    expect((await get('current')).json()).toMatchObject({ errorKey: ERROR_KEYS.raffleNotFound });
    const { id } = (await adminCall('/api/admin/race/start-raffle', { racers: 1 })).body
      .raffle as RaffleSummary;
    for (let i = 0; i < 30; i++)
      await app.raffles.enter({ platform: 'twitch', platformUserId: `tw-${i}`, displayName: `Viewer ${i}` });
    await enter('twitch', 'tw-last');

    const summary = await get('current');
    expect(summary.statusCode).toBe(200);
    expect(summary.headers['cache-control']).toBe('no-cache');
    expect(summary.json()).toMatchObject({ id, status: 'open', entryCount: 31 });
    expect(summary.json()).not.toHaveProperty('entries');
    const etag = summary.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]{32}"$/);
    const again = await get('current', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await get(String(id))).headers.etag).toBe(etag);

    // Pages in the canonical order, sizes as every table's.
    const page = (await get(`${id}/entries?page=2&limit=10`)).json();
    expect(page.totalCount).toBe(31);
    expect(page.data.map((e: { platformUserId: string }) => e.platformUserId)).toEqual([
      'tw-18',
      'tw-19',
      'tw-2',
      'tw-20',
      'tw-21',
      'tw-22',
      'tw-23',
      'tw-24',
      'tw-25',
      'tw-26',
    ]);
    expect((await get(`${id}/entries?page=9&limit=10`)).json()).toEqual({ data: [], totalCount: 31 });
    expect((await get(`${id}/entries?limit=7`)).statusCode).toBe(400);

    // The whole record, compressed once: the same bytes for every browser asking for gzip.
    const record = await get(`${id}/record`, { 'accept-encoding': 'gzip' });
    expect(record.headers['content-encoding']).toBe('gzip');
    expect(record.headers['content-disposition']).toBe(`attachment; filename="raffle-${id}.json"`);
    const json = JSON.parse(gunzipSync(record.rawPayload).toString());
    expect(json).toMatchObject({ id, entryCount: 31 });
    expect(json.entries).toHaveLength(31);
    expect((await get(`${id}/record`, { 'accept-encoding': 'gzip' })).rawPayload).toEqual(record.rawPayload);
    expect((await get(`${id + 1}/record`)).statusCode).toBe(404);
  });

  it("the open raffle's answers follow entries, ticket totals and links of its members, not other facts", async () => {
    const { app, admin, adminCall, call } = await setup();
    const { id } = (await adminCall('/api/admin/race/start-raffle', { racers: 2 })).body
      .raffle as RaffleSummary;
    const join = (platform: 'twitch' | 'discord', platformUserId: string) =>
      app.raffles.enter({ platform, platformUserId, displayName: platformUserId });
    const weights = async () => {
      const response = await app.inject({ method: 'GET', url: `/api/raffles/${id}/record` });
      const record = response.json() as RaffleRecord;
      return Object.fromEntries(record.entries.map((e) => [`${e.platform}:${e.platformUserId}`, e.weight]));
    };
    const member = await buildUser(app.database.db, { twitchId: 'tw-member' });
    const memberTickets = (await app.tickets.forUser(member.id))?.tickets as number;
    /** Every fact so far applied to the open raffle kept in memory. */
    const settled = () => app.raffles.open.settled();
    await join('twitch', 'tw-member');
    await join('twitch', 'tw-chat');
    apps.clock.advance(REMAKE_MIN_MS);
    expect(await weights()).toEqual({ 'twitch:tw-chat': 100, 'twitch:tw-member': memberTickets });

    // Tickets changed behind the service's back (no fact, as a donation expiring) and a stranger
    // changing their theme: no remake — the answer is made from memory, by facts.
    await app.tickets.add({ userId: member.id, kind: 'adjustment', amount: 7, sourceId: 'quiet-7' });
    const stranger = await buildUser(app.database.db);
    apps.clock.advance(REMAKE_MIN_MS);
    const theme = await app.inject({
      method: 'PATCH',
      url: '/api/me/theme',
      headers: await authHeader(app, stranger),
      payload: { preferred_theme: 'light' },
    });
    expect(theme.statusCode).toBe(200);
    await settled();
    expect(await weights()).toHaveProperty('twitch:tw-member', memberTickets);
    // At least every OPEN_MAX_AGE_MS the accounts' totals are read again.
    apps.clock.advance(OPEN_MAX_AGE_MS);
    expect(await weights()).toHaveProperty('twitch:tw-member', memberTickets + 7);

    // An entry: remade at most once a second — the request after that sees it.
    await join('discord', 'dc-new');
    await settled();
    expect(await weights()).not.toHaveProperty('discord:dc-new');
    apps.clock.advance(REMAKE_MIN_MS);
    expect(await weights()).toHaveProperty('discord:dc-new', 100);

    // The tickets of an account in the raffle.
    const adjusted = await call('POST', `/api/admin/users/${member.id}/adjust-tickets`, { amount: 50 });
    expect(adjusted.statusCode, adjusted.body).toBe(200);
    await settled();
    apps.clock.advance(REMAKE_MIN_MS);
    expect(await weights()).toHaveProperty('twitch:tw-member', memberTickets + 57);

    // A member linking an identity that entered: its entry weighs the account's total now, and
    // it is merged with the account's first entry (one account, one entry).
    const linked = await updateUser(app.database.db, member.id, { discordId: 'dc-new' });
    app.events.emit('user.changed', { userId: member.id, username: linked.username });
    await settled();
    apps.clock.advance(REMAKE_MIN_MS);
    const merged = await weights();
    expect(merged).not.toHaveProperty('discord:dc-new');
    expect(merged).toHaveProperty('twitch:tw-member', memberTickets + 57 + 25);
    expect(admin.id).not.toBe(member.id);
    // What the draw takes is what was published.
    const drawn = await adminCall('/api/admin/race/draw-winners');
    expect(drawn.status).toBe(200);
    const record = (
      await app.inject({ method: 'GET', url: `/api/raffles/${id}/record` })
    ).json() as RaffleRecord;
    expect(
      Object.fromEntries(record.entries.map((e) => [`${e.platform}:${e.platformUserId}`, e.weight])),
    ).toEqual(merged);
  });

  it('a drawn raffle is frozen: claims and later ticket changes do not change what it published', async () => {
    const { app, adminCall, call, enter } = await setup();
    const member = await buildUser(app.database.db, { twitchId: 'tw-frozen' });
    await adminCall('/api/admin/race/start-raffle', { racers: 1 });
    await enter('twitch', 'tw-frozen');
    const { id } = (await adminCall('/api/admin/race/draw-winners')).body.raffle as RaffleSummary;
    const record = async () => app.inject({ method: 'GET', url: `/api/raffles/${id}/record` });
    const before = await record();
    expect(
      await app.raffles.claimPrize({ platform: 'twitch', platformUserId: 'tw-frozen' }, member.id),
    ).not.toBeNull();
    await call('POST', `/api/admin/users/${member.id}/adjust-tickets`, { amount: 40 });
    apps.clock.advance(OPEN_MAX_AGE_MS);
    const after = await record();
    expect(after.headers.etag).toBe(before.headers.etag);
    expect((await verifyRaffleRecord(after.json())).ok).toBe(true);
  });
});

describe('one account, one entry: links made after entering', () => {
  it('two identities that entered apart, then linked to one account, are drawn once with its weight', async () => {
    const { app, adminCall, record } = await setup();
    await adminCall('/api/admin/race/start-raffle', { racers: 2 });
    const join = (platform: 'twitch' | 'discord', platformUserId: string) =>
      app.raffles.enter({ platform, platformUserId, displayName: platformUserId });
    await join('twitch', 'tw-late');
    apps.clock.advance(5);
    await join('discord', 'dc-late');
    await join('discord', 'dc-someone');
    // The viewer signs up and links both afterwards.
    const viewer = await buildUser(app.database.db, { twitchId: 'tw-late', discordId: 'dc-late' });
    const viewerTickets = (await app.tickets.forUser(viewer.id))?.tickets as number;
    app.events.emit('user.changed', { userId: viewer.id, username: viewer.username });
    // Entering again from either platform is "already in".
    expect(await join('discord', 'dc-late')).toMatchObject({ entered: false });

    const drawn = await adminCall('/api/admin/race/draw-winners');
    const { id, winners } = drawn.body.raffle as RaffleSummary;
    expect(winners.map((w) => w.platformUserId).sort()).toEqual(['dc-someone', 'tw-late']);
    const published = await record(id);
    expect(published.entries.map((e) => [e.platformUserId, e.weight])).toEqual([
      ['dc-someone', RAFFLE_BASE_WEIGHT],
      ['tw-late', viewerTickets],
    ]);
    expect((await verifyRaffleRecord(published)).ok).toBe(true);
    expect((await audits(app)).find((a) => a.action === 'raffle.draw')?.after).toMatchObject({
      entries: 2,
      merged: ['discord:dc-late → twitch:tw-late'],
    });
    // The merged identity has no prize: the win is bound to the entry drawn.
    expect(await app.raffles.hasPendingPrize({ platform: 'discord', platformUserId: 'dc-late' })).toBe(false);
    expect(await app.raffles.hasPendingPrize({ platform: 'twitch', platformUserId: 'tw-late' })).toBe(true);
  });
});

describe('entries arriving during the draw', () => {
  it('are either in the list drawn from or refused, never added to a drawn raffle', async () => {
    const { app, adminCall } = await setup();
    await adminCall('/api/admin/race/start-raffle', { racers: 3 });
    const entering = Array.from({ length: 30 }, (_, i) =>
      app.raffles.enter({ platform: 'discord', platformUserId: `dc-${i}`, displayName: `Viewer ${i}` }),
    );
    const drawing = adminCall('/api/admin/race/draw-winners');
    const outcomes = await Promise.allSettled(entering);
    expect((await drawing).status).toBe(200);

    const { id } = (await app.inject({ method: 'GET', url: '/api/raffles/current' })).json() as RaffleSummary;
    const published = (
      await app.inject({ method: 'GET', url: `/api/raffles/${id}/record` })
    ).json() as RaffleRecord;
    expect((await verifyRaffleRecord(published)).ok).toBe(true);
    const listed = new Set(published.entries.map((e) => e.platformUserId));
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'fulfilled') expect(listed.has(`dc-${i}`), `dc-${i}`).toBe(true);
      else expect(outcome.reason).toMatchObject({ errorKey: ERROR_KEYS.raffleNotOpen });
    });
    expect(listed.size).toBe(outcomes.filter((o) => o.status === 'fulfilled').length);
  });
});

describe('prizes', () => {
  it('claim once, release, expiry on the clock, and clear-pending-wins', async () => {
    const { app, adminCall, enter, call } = await setup();
    await adminCall('/api/admin/race/start-raffle', { racers: 3 });
    for (const id of ['tw-a', 'tw-b', 'tw-c']) await enter('twitch', id);
    await adminCall('/api/admin/race/draw-winners');
    const member = await buildUser(app.database.db);
    const a = { platform: 'twitch', platformUserId: 'tw-a' } as const;
    const b = { platform: 'twitch', platformUserId: 'tw-b' } as const;
    const c = { platform: 'twitch', platformUserId: 'tw-c' } as const;

    expect(await app.raffles.hasPendingPrize(a)).toBe(true);
    // Another identity (never won; the same id on another platform) finds nothing.
    expect(
      await app.raffles.claimPrize({ platform: 'discord', platformUserId: 'tw-a' }, member.id),
    ).toBeNull();
    const claimed = await app.raffles.claimPrize(a, member.id);
    expect(claimed).toEqual({ prizeId: expect.any(Number) });
    expect(await app.raffles.claimPrize(a, member.id)).toBeNull();
    expect(await app.raffles.hasPendingPrize(a)).toBe(false);

    // No car to give: the claim is given back, the prize is pending again.
    expect(await app.raffles.releasePrize(claimed?.prizeId as number)).toBe(true);
    expect(await app.raffles.hasPendingPrize(a)).toBe(true);
    expect(await app.raffles.releasePrize(claimed?.prizeId as number)).toBe(false);
    expect((await app.raffles.claimPrize(a, member.id))?.prizeId).toBe(claimed?.prizeId);

    // "Clear expired wins" clears only expired wins: b and c, drawn a moment ago, stay claimable.
    expect((await call('POST', '/api/admin/race/clear-pending-wins')).json()).toEqual({ cleared: 0 });
    expect(await app.raffles.hasPendingPrize(b)).toBe(true);
    expect(await app.raffles.hasPendingPrize(c)).toBe(true);
    expect(await app.raffles.claimPrize(b, member.id)).toEqual({ prizeId: expect.any(Number) });

    // Expiry follows the clock: claimable until PRIZE_CLAIM_MINUTES pass.
    apps.clock.advance(15 * 60_000 - 1);
    expect(await app.raffles.hasPendingPrize(c)).toBe(true);
    apps.clock.advance(1);
    expect(await app.raffles.hasPendingPrize(c)).toBe(false);
    expect(await app.raffles.claimPrize(c, member.id)).toBeNull();
    // A claimed prize cannot be given back once expired.
    expect(await app.raffles.releasePrize(claimed?.prizeId as number)).toBe(false);
    const expired = (await call('GET', '/api/admin/raffle')).json() as AdminRaffleResponse;
    expect(Object.fromEntries(expired.prizes.map((p) => [p.platformUserId, p.state]))).toEqual({
      'tw-a': 'claimed',
      'tw-b': 'claimed',
      'tw-c': 'expired',
    });

    // Now the expired, unclaimed one is cleared; the claimed ones are not touched.
    expect((await call('POST', '/api/admin/race/clear-pending-wins')).json()).toEqual({ cleared: 1 });
    const view = (await call('GET', '/api/admin/raffle')).json() as AdminRaffleResponse;
    expect(Object.fromEntries(view.prizes.map((p) => [p.platformUserId, p.state]))).toEqual({
      'tw-a': 'claimed',
      'tw-b': 'claimed',
      'tw-c': 'cleared',
    });
    expect((await call('POST', '/api/admin/race/clear-pending-wins')).json()).toEqual({ cleared: 0 });
    expect(
      (await audits(app)).filter((x) => x.action === 'prizes.clear').map((x) => x.after.prizeIds),
    ).toEqual([[], [expect.any(Number)], []]);

    // A new raffle's win drawn now is not cleared while an old one is.
    await adminCall('/api/admin/race/start-raffle', { racers: 1 });
    await enter('discord', 'dc-late');
    await adminCall('/api/admin/race/draw-winners');
    const late = { platform: 'discord', platformUserId: 'dc-late' } as const;
    expect((await call('POST', '/api/admin/race/clear-pending-wins')).json()).toEqual({ cleared: 0 });
    expect(await app.raffles.claimPrize(late, member.id)).toEqual({ prizeId: expect.any(Number) });
  });

  it('20 concurrent claims of one prize: exactly one succeeds', async () => {
    const { app, adminCall, enter } = await setup();
    await adminCall('/api/admin/race/start-raffle', { racers: 1 });
    await enter('youtube', 'UC-winner');
    await adminCall('/api/admin/race/draw-winners');
    const claimants = await Promise.all(Array.from({ length: 20 }, () => buildUser(app.database.db)));
    const identity = { platform: 'youtube', platformUserId: 'UC-winner' } as const;
    const results = await Promise.all(claimants.map((member) => app.raffles.claimPrize(identity, member.id)));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    const view = await app.raffles.adminView();
    expect(view.prizes.map((p) => p.state)).toEqual(['claimed']);
  });
});

describe('who may call what', () => {
  it('the admin calls refuse members (403) and anonymous callers (401); the public raffle is public', async () => {
    const { app, adminCall, publicRaffle } = await setup();
    const member = await authHeader(app, await buildUser(app.database.db));
    const adminCalls: ['GET' | 'POST', string, Json?][] = [
      ['GET', '/api/admin/raffle'],
      ['POST', '/api/admin/race/start-raffle', { racers: 2 }],
      [
        'POST',
        '/api/admin/race/raffle-entries',
        { platform: 'twitch', platformUserId: 'x', displayName: 'x' },
      ],
      ['POST', '/api/admin/race/draw-winners', {}],
      ['POST', '/api/admin/race/abort-raffle', {}],
      ['POST', '/api/admin/race/clear-pending-wins', {}],
    ];
    for (const [method, url, payload] of adminCalls) {
      const options = { method, url, ...(payload ? { payload } : {}) };
      expect((await app.inject({ ...options, headers: member })).statusCode, url).toBe(403);
      expect((await app.inject(options)).statusCode, url).toBe(401);
    }
    // Nothing was opened by the refused calls.
    expect((await publicRaffle('current')).status).toBe(404);

    const opened = (await adminCall('/api/admin/race/start-raffle', { racers: 2 })).body
      .raffle as RaffleSummary;
    expect(await publicRaffle('current')).toMatchObject({ status: 200, body: { id: opened.id } });
    expect(await publicRaffle(String(opened.id + 1))).toMatchObject({
      status: 404,
      body: { errorKey: ERROR_KEYS.raffleNotFound },
    });
    // Invalid bodies: racers under 1, an identity with a colon.
    expect((await adminCall('/api/admin/race/start-raffle', { racers: 0 })).status).toBe(400);
    expect(
      (
        await adminCall('/api/admin/race/raffle-entries', {
          platform: 'twitch',
          platformUserId: 'a:b',
          displayName: 'x',
        })
      ).status,
    ).toBe(400);
  });
});

describe('a restart', () => {
  it('keeps raffle_status open, and the empty lobby a draw opened', async () => {
    const first = await setup(true);
    await first.adminCall('/api/admin/race/start-raffle', { racers: 1 });
    await first.enter('twitch', 'tw-1');
    await stopServer(first.app);

    const second = await boot(true);
    expect(second.race.state()).toMatchObject({ race_status: 'idle', raffle_status: 'open' });
    const admin = await buildAdmin(second.database.db);
    const drawn = await second.inject({
      method: 'POST',
      url: '/api/admin/race/draw-winners',
      headers: await authHeader(second, admin),
    });
    expect(drawn.statusCode).toBe(200);
    const lobbyId = second.race.state().race_id;
    expect(lobbyId).not.toBeNull();
    await stopServer(second);

    const third = await boot(true);
    expect(third.race.state()).toMatchObject({
      race_id: lobbyId,
      race_status: 'lobby',
      raffle_status: 'closed',
      totalParticipants: 0,
    });
  });
});
