import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketLedger } from '../../db/schema.js';
import { startTestApp } from '../../test/app.js';
import { failNextWrites, type HiccupTable } from '../../test/database-hiccup.js';
import { authHeader, buildUser } from '../../test/factories.js';
import {
  type EventSubDeliveryOptions,
  type EventSubUser,
  eventSubDelivery,
  eventSubEvents,
} from '../../test/stand-ins/twitch-eventsub.js';

const SECRET = 'an eventsub secret for tests';
let seq = 0;
const newUser = (name: string): EventSubUser => {
  seq += 1;
  return {
    id: `${90_000 + seq}${Math.random().toString().slice(2, 6)}`,
    login: `${name.toLowerCase()}_${seq}`,
    name,
  };
};

describe('POST /api/webhooks/twitch (EventSub)', () => {
  let testApp: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    testApp = await startTestApp({ TWITCH_EVENTSUB_SECRET: SECRET });
  });
  afterAll(() => testApp.close());

  const post = (options: EventSubDeliveryOptions, secret = SECRET) => {
    const { headers, payload } = eventSubDelivery(secret, options);
    return testApp.app.inject({ method: 'POST', url: '/api/webhooks/twitch', headers, payload });
  };
  const notify = (subscriptionType: string, event: Record<string, unknown>, messageId?: string) =>
    post({ type: 'notification', subscriptionType, event, ...(messageId ? { messageId } : {}) });
  // The viewer's account links their Twitch identity (created once, on the first look).
  const members = new Map<string, Promise<{ authorization: string }>>();
  const ticketsOf = async (user: EventSubUser) => {
    let headers = members.get(user.id);
    if (!headers) {
      headers = buildUser(testApp.app.database.db, { twitchId: user.id }).then((member) =>
        authHeader(testApp.app, member),
      );
      members.set(user.id, headers);
    }
    const response = await testApp.app.inject({ url: '/api/me/tickets', headers: await headers });
    return response.json().breakdown as { loyalty: number; donations: number };
  };
  const ledgerRows = (sourceId: string) =>
    testApp.app.database.db.select().from(ticketLedger).where(eq(ticketLedger.sourceId, sourceId));
  const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 5_000, interval: 25 });

  it('is on with its secret alone: Twitch shows as connected to the webhook', () => {
    expect(testApp.app.integrations.status('twitch')).toMatchObject({
      state: 'connected',
      target: '/api/webhooks/twitch',
      canSendTestMessage: false,
    });
  });

  it('answers the subscription’s verification with the challenge, as text', async () => {
    const response = await post({
      type: 'webhook_callback_verification',
      subscriptionType: 'channel.cheer',
      challenge: 'pogchamp-kappa-360noscope-vohiyo',
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toBe('pogchamp-kappa-360noscope-vohiyo');
  });

  it('turns bits into donation tickets (100 bits = 1 ticket) for whoever links the account', async () => {
    const viewer = newUser('Cheerer');
    const response = await notify('channel.cheer', eventSubEvents.cheer(viewer, 550));
    expect(response.statusCode).toBe(204);
    await poll(async () => (await ticketsOf(viewer)).donations).toBe(5);
  });

  it('gives nothing for an anonymous cheer', async () => {
    const { messageId } = eventSubDelivery(SECRET, {
      type: 'notification',
      subscriptionType: 'channel.cheer',
    });
    expect((await notify('channel.cheer', eventSubEvents.cheer(null, 10_000), messageId)).statusCode).toBe(
      204,
    );
    // A named cheer after it: once that one is in, the anonymous one was handled too.
    const named = eventSubDelivery(SECRET, { type: 'notification', subscriptionType: 'channel.cheer' });
    await notify('channel.cheer', eventSubEvents.cheer(newUser('Named'), 100), named.messageId);
    await poll(async () => (await ledgerRows(`twitch:cheer:${named.messageId}`)).length).toBe(1);
    expect(await ledgerRows(`twitch:cheer:${messageId}`)).toHaveLength(0);
  });

  it('applies the same delivery once, however often it arrives (×100 → one ledger row)', async () => {
    const viewer = newUser('Replayer');
    const { messageId } = eventSubDelivery(SECRET, {
      type: 'notification',
      subscriptionType: 'channel.cheer',
    });
    const event = eventSubEvents.cheer(viewer, 300);
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => notify('channel.cheer', event, messageId)),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(100).fill(204));
    await poll(async () => (await ledgerRows(`twitch:cheer:${messageId}`)).length).toBe(1);
    expect((await ledgerRows(`twitch:cheer:${messageId}`))[0]).toMatchObject({
      platform: 'twitch',
      platformUserId: viewer.id,
      amount: 3,
    });
    expect((await ticketsOf(viewer)).donations).toBe(3);
  });

  it('gives loyalty for a subscription, raises it with the cumulative months, removes it at the end', async () => {
    const viewer = newUser('Subscriber');
    expect((await notify('channel.subscribe', eventSubEvents.subscribe(viewer))).statusCode).toBe(204);
    await poll(async () => (await ticketsOf(viewer)).loyalty).toBe(5);
    await notify('channel.subscription.message', eventSubEvents.subscriptionMessage(viewer, 3));
    await poll(async () => (await ticketsOf(viewer)).loyalty).toBe(30);
    await notify('channel.subscription.end', eventSubEvents.subscriptionEnd(viewer));
    await poll(async () => (await ticketsOf(viewer)).loyalty).toBe(0);
  });

  // Twitch retries a delivery answered with anything but a 2xx: a write that fails must say so.
  const withHiccup = async (table: HiccupTable, run: () => Promise<void>) => {
    const hiccup = await failNextWrites(testApp.app.database.db, table);
    try {
      await run();
      expect(await hiccup.refused()).toBe(1);
    } finally {
      await hiccup.remove();
    }
  };

  it('answers 503 when bits cannot be written; Twitch’s retry of the message gives the tickets once', async () => {
    const viewer = newUser('Unlucky');
    const event = eventSubEvents.cheer(viewer, 700);
    const { messageId } = eventSubDelivery(SECRET, {
      type: 'notification',
      subscriptionType: 'channel.cheer',
    });
    await withHiccup('ticket_ledger', async () => {
      const failed = await notify('channel.cheer', event, messageId);
      expect(failed.statusCode).toBe(503);
      expect(failed.headers['retry-after']).toBeDefined();
      expect(await ledgerRows(`twitch:cheer:${messageId}`)).toHaveLength(0);
      // Applied when answered: the 2xx means the tickets are written.
      expect((await notify('channel.cheer', event, messageId)).statusCode).toBe(204);
      expect(await ledgerRows(`twitch:cheer:${messageId}`)).toHaveLength(1);
    });
    expect((await notify('channel.cheer', event, messageId)).statusCode).toBe(204);
    expect((await ledgerRows(`twitch:cheer:${messageId}`)).map((row) => row.amount)).toEqual([7]);
    expect((await ticketsOf(viewer)).donations).toBe(7);
  });

  it('answers 503 when a subscription or its end cannot be written; each retry applies it once', async () => {
    const viewer = newUser('Steadfast');
    const subscribe = eventSubDelivery(SECRET, {
      type: 'notification',
      subscriptionType: 'channel.subscribe',
    });
    const end = eventSubDelivery(SECRET, {
      type: 'notification',
      subscriptionType: 'channel.subscription.end',
    });
    const send = (delivery: { messageId: string }, type: string, event: Record<string, unknown>) =>
      notify(type, event, delivery.messageId).then((response) => response.statusCode);

    await withHiccup('subscriptions', async () => {
      expect(await send(subscribe, 'channel.subscribe', eventSubEvents.subscribe(viewer))).toBe(503);
      expect((await ticketsOf(viewer)).loyalty).toBe(0);
      expect(await send(subscribe, 'channel.subscribe', eventSubEvents.subscribe(viewer))).toBe(204);
      expect((await ticketsOf(viewer)).loyalty).toBe(5);
    });
    await withHiccup('subscriptions', async () => {
      const endEvent = eventSubEvents.subscriptionEnd(viewer);
      expect(await send(end, 'channel.subscription.end', endEvent)).toBe(503);
      expect((await ticketsOf(viewer)).loyalty).toBe(5);
      expect(await send(end, 'channel.subscription.end', endEvent)).toBe(204);
      expect((await ticketsOf(viewer)).loyalty).toBe(0);
    });
    // The subscription's delivery again, after its end: a replay changes nothing.
    expect(await send(subscribe, 'channel.subscribe', eventSubEvents.subscribe(viewer))).toBe(204);
    expect((await ticketsOf(viewer)).loyalty).toBe(0);
  });

  it('refuses a wrong or missing signature (403)', async () => {
    const event = eventSubEvents.cheer(newUser('Forger'), 100_000);
    const wrongSecret = await post(
      { type: 'notification', subscriptionType: 'channel.cheer', event },
      'not the eventsub secret at all',
    );
    expect(wrongSecret.statusCode).toBe(403);
    expect(wrongSecret.json().errorKey).toBe('errors.invalidWebhookSignature');
    const garbled = await post({
      type: 'notification',
      subscriptionType: 'channel.cheer',
      event,
      signature: 'sha256=00',
    });
    expect(garbled.statusCode).toBe(403);

    const { headers, payload } = eventSubDelivery(SECRET, {
      type: 'notification',
      subscriptionType: 'channel.cheer',
      event,
    });
    const unsigned = { ...headers };
    delete unsigned['twitch-eventsub-message-signature'];
    const missing = await testApp.app.inject({
      method: 'POST',
      url: '/api/webhooks/twitch',
      headers: unsigned,
      payload,
    });
    expect(missing.statusCode).toBe(403);
    // The body signed is the body received: another amount breaks it.
    const tampered = await testApp.app.inject({
      method: 'POST',
      url: '/api/webhooks/twitch',
      headers,
      payload: payload.replace('100000', '1000000'),
    });
    expect(tampered.statusCode).toBe(403);
    // The signature comes before the body: an unsigned caller learns nothing about its shape.
    const notEventSub = await testApp.app.inject({
      method: 'POST',
      url: '/api/webhooks/twitch',
      headers: unsigned,
      payload: '{"subscription":1}',
    });
    expect(notEventSub.statusCode).toBe(403);
  });

  it('refuses a delivery signed more than 10 minutes ago (a replay)', async () => {
    const event = eventSubEvents.cheer(newUser('Late'), 100);
    const stale = await post({
      type: 'notification',
      subscriptionType: 'channel.cheer',
      event,
      timestamp: new Date(Date.now() - 11 * 60_000),
    });
    expect(stale.statusCode).toBe(403);
    const recent = await post({
      type: 'notification',
      subscriptionType: 'channel.cheer',
      event,
      timestamp: new Date(Date.now() - 9 * 60_000),
    });
    expect(recent.statusCode).toBe(204);
  });

  it('reports a revoked subscription to the admin as an error with its reason', async () => {
    const response = await post({
      type: 'revocation',
      subscriptionType: 'channel.subscribe',
      status: 'authorization_revoked',
    });
    expect(response.statusCode).toBe(204);
    const status = testApp.app.integrations.status('twitch');
    expect(status.state).toBe('error');
    expect(status.lastError).toContain('channel.subscribe');
    expect(status.lastError).toContain('authorization_revoked');
  });
});

describe('the EventSub webhook without TWITCH_EVENTSUB_SECRET', () => {
  it('is not registered (404), and Twitch is not configured', async () => {
    const testApp = await startTestApp();
    try {
      const { headers, payload } = eventSubDelivery('any secret here', {
        type: 'webhook_callback_verification',
        subscriptionType: 'channel.cheer',
      });
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/api/webhooks/twitch',
        headers,
        payload,
      });
      expect(response.statusCode).toBe(404);
      expect(testApp.app.hasRoute({ method: 'POST', url: '/api/webhooks/twitch' })).toBe(false);
      expect(testApp.app.integrations.status('twitch').state).toBe('not_configured');
    } finally {
      await testApp.close();
    }
  });
});
