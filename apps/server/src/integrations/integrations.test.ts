import { createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketLedger } from '../db/schema.js';
import { startTestApp } from '../test/app.js';
import { failNextWrites } from '../test/database-hiccup.js';
import { authHeader, buildAdmin, buildUser } from '../test/factories.js';

const SECRET = 'a tips secret of enough length';
const ADMIN = { id: null, username: 'test' };
let seq = 0;
const unique = (prefix: string) => `${prefix}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

describe('the integrations hub', () => {
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    testApp = await startTestApp({ TIPS_WEBHOOK_SECRET: SECRET, DONATION_USD_RATES: 'EUR=1.08, cad=0.73' });
  });
  afterAll(() => testApp.close());
  const hub = () => testApp.app.integrations;

  it('reads the join command as the first word of a line, in any case', () => {
    expect(hub().isJoinCommand('!join')).toBe(true);
    expect(hub().isJoinCommand('  !JOIN please')).toBe(true);
    expect(hub().isJoinCommand('!joined')).toBe(false);
    expect(hub().isJoinCommand('hello !join')).toBe(false);
  });

  it('enters viewers, answering each at most once per raffle', async () => {
    const viewer = { platform: 'twitch' as const, platformUserId: unique('tw'), displayName: 'Ana' };
    expect(await hub().join(viewer)).toEqual({ outcome: 'no_raffle', answer: true });
    expect(await hub().join(viewer)).toEqual({ outcome: 'no_raffle', answer: false });

    await testApp.app.raffles.start(ADMIN, 2);
    expect(await hub().join(viewer)).toEqual({ outcome: 'entered', answer: true });
    expect(await hub().join(viewer)).toEqual({ outcome: 'already_in', answer: false });
    const banned = await buildUser(testApp.app.database.db, { discordId: unique('d'), isBanned: true });
    expect(
      await hub().join({
        platform: 'discord',
        platformUserId: banned.discordId as string,
        displayName: 'Bo',
      }),
    ).toEqual({ outcome: 'refused', answer: true });

    const view = await hub().adminView();
    expect(view.openRaffleEntries).toEqual({ twitch: 1, youtube: 0, discord: 0 });
    expect(view.recentEvents[0]).toMatchObject({ platform: 'discord', kind: 'join', outcome: 'refused' });
    await testApp.app.raffles.abort(ADMIN);
    expect((await hub().adminView()).openRaffleEntries).toBeNull();
    // A new round: the viewer is answered again.
    expect(await hub().join(viewer)).toEqual({ outcome: 'no_raffle', answer: true });
  });

  it('writes the answers in the configured language, batching mentions', () => {
    expect(hub().reply('entered', ['@ana', '@bo'])).toBe("@ana, @bo: you're in the raffle. Good luck!");
  });

  it('turns donations into whole USD tickets through the rate table, once per source', async () => {
    const viewer = { platform: 'youtube' as const, platformUserId: unique('yt'), displayName: 'Cy' };
    expect(await hub().donation(viewer, { amount: 5, currency: 'usd', sourceId: unique('s') })).toBe(5);
    expect(await hub().donation(viewer, { amount: 10, currency: 'EUR', sourceId: unique('s') })).toBe(10);
    expect(await hub().donation(viewer, { amount: 10, currency: 'CAD', sourceId: unique('s') })).toBe(7);
    expect(await hub().donation(viewer, { amount: 0.99, currency: 'USD', sourceId: unique('s') })).toBe(0);
    expect(await hub().donation(viewer, { amount: 50, currency: 'JPY', sourceId: unique('s') })).toBe(0);
    const source = unique('s');
    expect(await hub().donation(viewer, { amount: 3, currency: 'USD', sourceId: source })).toBe(3);
    expect(await hub().donation(viewer, { amount: 3, currency: 'USD', sourceId: source })).toBe(0);
    const user = await buildUser(testApp.app.database.db, { youtubeId: viewer.platformUserId });
    expect((await testApp.app.tickets.forUser(user.id))?.breakdown.donations).toBe(5 + 10 + 7 + 3);
    expect((await hub().adminView()).recentEvents[1]).toMatchObject({
      kind: 'donation',
      currency: 'JPY',
      tickets: 0,
    });
  });

  it('weighs a linked subscriber’s entry with their loyalty and donations; an unlinked viewer has the base', async () => {
    const subscriber = { platform: 'twitch' as const, platformUserId: unique('tw'), displayName: 'Sub' };
    const stranger = { platform: 'youtube' as const, platformUserId: unique('yt'), displayName: 'Stranger' };
    await hub().subscribed(subscriber, 6);
    await hub().donation(subscriber, { amount: 20, currency: 'USD', sourceId: unique('s') });
    await hub().donation(stranger, { amount: 20, currency: 'USD', sourceId: unique('s') });
    await buildUser(testApp.app.database.db, { twitchId: subscriber.platformUserId });
    await testApp.app.raffles.start(ADMIN, 2);
    await hub().join(subscriber);
    await hub().join(stranger);
    const { entries } = (await testApp.app.raffles.publicRaffle('current', { fresh: true })).snapshot;
    const weights = Object.fromEntries(entries.map((entry) => [entry.displayName, entry.weight]));
    // 100 base + 25 linked Twitch + 45 loyalty (6 months) + 20 donation tickets.
    expect(weights).toEqual({ Sub: 190, Stranger: 100 });
    await testApp.app.raffles.abort(ADMIN);
  });

  describe('the admin calls', () => {
    it('list every integration: those without settings are not configured; tips is on', async () => {
      const admin = await buildAdmin(testApp.app.database.db);
      const response = await testApp.app.inject({
        url: '/api/admin/integrations',
        headers: await authHeader(testApp.app, admin),
      });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.joinCommand).toBe('!join');
      expect(body.integrations.map((i: { id: string; state: string }) => [i.id, i.state])).toEqual([
        ['twitch', 'not_configured'],
        ['youtube', 'not_configured'],
        ['discord', 'not_configured'],
        ['tips', 'connected'],
      ]);
    });

    it('refuse members and anonymous callers', async () => {
      const member = await buildUser(testApp.app.database.db);
      const headers = await authHeader(testApp.app, member);
      expect((await testApp.app.inject({ url: '/api/admin/integrations', headers })).statusCode).toBe(403);
      expect((await testApp.app.inject({ url: '/api/admin/integrations' })).statusCode).toBe(401);
    });

    it('send a test message only where the integration can and is connected, audited', async () => {
      const admin = await buildAdmin(testApp.app.database.db);
      const headers = await authHeader(testApp.app, admin);
      const send = (id: string) =>
        testApp.app.inject({
          method: 'POST',
          url: `/api/admin/integrations/${id}/test-message`,
          headers,
          payload: {},
        });
      expect((await send('tips')).json().errorKey).toBe('errors.testMessageUnsupported');
      expect((await send('myspace')).statusCode).toBe(400);

      const sent: string[] = [];
      hub().register({
        id: 'youtube',
        target: 'chat-1',
        sendTestMessage: async (text) => void sent.push(text),
      });
      const notYet = await send('youtube');
      expect(notYet.statusCode).toBe(409);
      expect(notYet.json().errorKey).toBe('errors.integrationNotConnected');
      hub().setState('youtube', 'connected');
      expect((await send('youtube')).statusCode).toBe(204);
      expect(sent).toEqual(['Telerace test message: the bot is connected.']);
      hub().setState('youtube', 'error', 'quota exceeded');
      expect(hub().status('youtube')).toMatchObject({ state: 'error', lastError: 'quota exceeded' });
    });
  });

  describe('POST /api/webhooks/tips', () => {
    const post = (body: unknown, sign: (raw: string) => string | undefined = (raw) => hmac(raw)) => {
      const raw = JSON.stringify(body);
      const signature = sign(raw);
      return testApp.app.inject({
        method: 'POST',
        url: '/api/webhooks/tips',
        headers: { 'content-type': 'application/json', ...(signature ? { 'x-signature': signature } : {}) },
        payload: raw,
      });
    };
    const hmac = (raw: string, secret = SECRET) => createHmac('sha256', secret).update(raw).digest('hex');

    it('gives 1 ticket per USD to the identity, once per tip id', async () => {
      const tip = {
        id: unique('tip'),
        platform: 'twitch',
        platformUserId: unique('tw'),
        amount: 12.5,
        currency: 'USD',
      };
      const first = await post(tip);
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({ received: true, duplicate: false, tickets: 12 });
      expect((await post(tip)).json()).toEqual({ received: true, duplicate: true, tickets: 0 });
      const user = await buildUser(testApp.app.database.db, { twitchId: tip.platformUserId });
      expect((await testApp.app.tickets.forUser(user.id))?.breakdown.donations).toBe(12);
    });

    it('answers 503 when the tip cannot be written, so the retry of the same id gives the tickets once', async () => {
      const tip = {
        id: unique('tip'),
        platform: 'youtube',
        platformUserId: unique('yt'),
        amount: 9,
        currency: 'USD',
      };
      const hiccup = await failNextWrites(testApp.app.database.db, 'ticket_ledger');
      try {
        const failed = await post(tip);
        expect(failed.statusCode).toBe(503);
        expect(failed.headers['retry-after']).toBeDefined();
        expect(await hiccup.refused()).toBe(1);
        expect((await post(tip)).json()).toEqual({ received: true, duplicate: false, tickets: 9 });
        expect((await post(tip)).json()).toEqual({ received: true, duplicate: true, tickets: 0 });
      } finally {
        await hiccup.remove();
      }
      const rows = await testApp.app.database.db
        .select()
        .from(ticketLedger)
        .where(eq(ticketLedger.sourceId, `tips:${tip.id}`));
      expect(rows.map((row) => row.amount)).toEqual([9]);
      const user = await buildUser(testApp.app.database.db, { youtubeId: tip.platformUserId });
      expect((await testApp.app.tickets.forUser(user.id))?.breakdown.donations).toBe(9);
    });

    it('refuses a missing or wrong signature (403), and a bad body (400)', async () => {
      const tip = { id: unique('tip'), platform: 'twitch', platformUserId: 'x', amount: 5, currency: 'USD' };
      expect((await post(tip, () => undefined)).statusCode).toBe(403);
      const wrong = await post(tip, (raw) => hmac(raw, 'another secret entirely'));
      expect(wrong.statusCode).toBe(403);
      expect(wrong.json().errorKey).toBe('errors.invalidWebhookSignature');
      expect((await post(tip, (raw) => `sha256=${hmac(raw)}`)).statusCode).toBe(200);
      expect((await post({ ...tip, id: unique('tip'), amount: -1 })).statusCode).toBe(400);
      const notJson = await testApp.app.inject({
        method: 'POST',
        url: '/api/webhooks/tips',
        headers: { 'content-type': 'application/json', 'x-signature': hmac('{nope') },
        payload: '{nope',
      });
      expect(notJson.statusCode).toBe(400);
    });

    it('checks the signature before the body: an unsigned bad body is 403, not a 400 naming fields', async () => {
      const response = await post({ id: '', amount: 'lots' }, () => undefined);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({
        error: 'The webhook signature is missing or wrong.',
        errorKey: 'errors.invalidWebhookSignature',
      });
      const signed = await post({ id: '', amount: 'lots' });
      expect(signed.statusCode).toBe(400);
      expect(signed.json().error).toMatch(/^body\.id: /);
    });

    it('is in the API reference, with its body', async () => {
      const document = (await testApp.app.inject('/api/openapi.json')).json();
      const operation = document.paths['/api/webhooks/tips']?.post;
      expect(operation?.description).toContain('X-Signature');
      expect(Object.keys(operation?.requestBody.content['application/json'].schema.properties)).toEqual(
        expect.arrayContaining(['id', 'platform', 'platformUserId', 'amount', 'currency']),
      );
    });
  });
});

describe('the quick start (no integration configured)', () => {
  it('registers no tips webhook: 404, and the API reference does not list it', async () => {
    const testApp = await startTestApp();
    try {
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/api/webhooks/tips',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: 'Not found', errorKey: 'errors.notFound' });
      expect(testApp.app.hasRoute({ method: 'POST', url: '/api/webhooks/tips' })).toBe(false);
      const document = (await testApp.app.inject('/api/openapi.json')).json();
      expect(Object.keys(document.paths).filter((path) => path.startsWith('/api/webhooks/'))).toEqual([]);
      expect(
        (await testApp.app.integrations.adminView()).integrations.every((i) => i.state === 'not_configured'),
      ).toBe(true);
    } finally {
      await testApp.close();
    }
  });
});
