/**
 * Test support: Twitch's side of EventSub webhooks — deliveries signed as Twitch signs them
 * (`sha256=` HMAC-SHA256(secret, message id + timestamp + raw body)), with Twitch's headers and
 * body shapes, for `app.inject` (eventSubDelivery).
 */
import { createHmac, randomUUID } from 'node:crypto';

export type EventSubMessageType = 'notification' | 'webhook_callback_verification' | 'revocation';

/** A Twitch user as EventSub events name them. */
export interface EventSubUser {
  id: string;
  login: string;
  /** Display name; default: the login. */
  name?: string;
}

export interface EventSubDeliveryOptions {
  type: EventSubMessageType;
  /** channel.subscribe, channel.cheer, … */
  subscriptionType: string;
  /** The notification's `event`. */
  event?: Record<string, unknown>;
  /** webhook_callback_verification's challenge. */
  challenge?: string;
  /** The subscription's status: a revocation's reason. */
  status?: string;
  /** Default: a new id (a redelivery keeps the id of the first). */
  messageId?: string;
  /** Default: now. */
  timestamp?: Date;
  /** Overrides the signature (a wrong one). */
  signature?: string;
}

export interface EventSubRequest {
  messageId: string;
  headers: Record<string, string>;
  payload: string;
}

export const BROADCASTER = { id: '12345', login: 'telerace', name: 'Telerace' };

export function signEventSub(secret: string, messageId: string, timestamp: string, raw: string): string {
  return `sha256=${createHmac('sha256', secret)
    .update(messageId + timestamp + raw)
    .digest('hex')}`;
}

/** One delivery as Twitch would send it. */
export function eventSubDelivery(secret: string, options: EventSubDeliveryOptions): EventSubRequest {
  const messageId = options.messageId ?? randomUUID();
  // Twitch writes nanoseconds: 2023-07-19T14:56:51.634234626Z.
  const timestamp = (options.timestamp ?? new Date()).toISOString().replace(/Z$/, '234626Z');
  const status =
    options.status ??
    (options.type === 'webhook_callback_verification' ? 'webhook_callback_verification_pending' : 'enabled');
  const body: Record<string, unknown> = {
    subscription: {
      id: randomUUID(),
      status,
      type: options.subscriptionType,
      version: '1',
      cost: 0,
      condition: { broadcaster_user_id: BROADCASTER.id },
      transport: { method: 'webhook', callback: 'https://telerace.example/api/webhooks/twitch' },
      created_at: new Date().toISOString(),
    },
  };
  if (options.type === 'webhook_callback_verification') body.challenge = options.challenge ?? randomUUID();
  if (options.type === 'notification') body.event = options.event ?? {};
  const payload = JSON.stringify(body);
  return {
    messageId,
    payload,
    headers: {
      'content-type': 'application/json',
      'twitch-eventsub-message-id': messageId,
      'twitch-eventsub-message-retry': '0',
      'twitch-eventsub-message-type': options.type,
      'twitch-eventsub-message-signature':
        options.signature ?? signEventSub(secret, messageId, timestamp, payload),
      'twitch-eventsub-message-timestamp': timestamp,
      'twitch-eventsub-subscription-type': options.subscriptionType,
      'twitch-eventsub-subscription-version': '1',
    },
  };
}

const broadcaster = {
  broadcaster_user_id: BROADCASTER.id,
  broadcaster_user_login: BROADCASTER.login,
  broadcaster_user_name: BROADCASTER.name,
};
const userFields = (user: EventSubUser) => ({
  user_id: user.id,
  user_login: user.login,
  user_name: user.name ?? user.login,
});

/** The `event` of each notification the integration handles. */
export const eventSubEvents = {
  subscribe: (user: EventSubUser) => ({ ...userFields(user), ...broadcaster, tier: '1000', is_gift: false }),
  subscriptionMessage: (user: EventSubUser, cumulativeMonths: number) => ({
    ...userFields(user),
    ...broadcaster,
    tier: '1000',
    message: { text: 'Love the races!', emotes: [] },
    cumulative_months: cumulativeMonths,
    streak_months: null,
    duration_months: 1,
  }),
  subscriptionEnd: (user: EventSubUser) => ({
    ...userFields(user),
    ...broadcaster,
    tier: '1000',
    is_gift: false,
  }),
  cheer: (user: EventSubUser | null, bits: number) => ({
    is_anonymous: user === null,
    user_id: user?.id ?? null,
    user_login: user?.login ?? null,
    user_name: user ? (user.name ?? user.login) : null,
    ...broadcaster,
    message: `Cheer${bits} go go go`,
    bits,
  }),
};
