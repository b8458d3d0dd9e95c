/**
 * What each EventSub notification means for tickets (docs/integrations.md "Twitch"): a new
 * subscription (loyalty, just subscribed), a resubscription's cumulative months (the loyalty
 * tier), the end of a subscription (loyalty removed), and bits (100 bits = 1 USD = 1 ticket).
 * The payloads are checked with zod; anything else is ignored.
 */
import { z } from 'zod';
import type { TicketEvent, Viewer } from '../integrations.service.js';

/** The subscription types `npm run twitch:subscribe` creates, with their version. */
export const EVENTSUB_TYPES = [
  { type: 'channel.subscribe', version: '1' },
  { type: 'channel.subscription.message', version: '1' },
  { type: 'channel.subscription.end', version: '1' },
  { type: 'channel.cheer', version: '1' },
] as const;

const EventUser = z.object({
  user_id: z.string().min(1),
  user_login: z.string(),
  user_name: z.string(),
});

const SubscriptionMessage = EventUser.extend({ cumulative_months: z.number().int().min(0) });

const Cheer = z.object({
  is_anonymous: z.boolean(),
  user_id: z.string().min(1).nullable(),
  user_login: z.string().nullable(),
  user_name: z.string().nullable(),
  bits: z.number().int().min(0),
});

const viewerOf = (user: {
  user_id: string;
  user_login: string | null;
  user_name: string | null;
}): Viewer => ({
  platform: 'twitch',
  platformUserId: user.user_id,
  displayName: user.user_name || user.user_login || user.user_id,
});

/**
 * What one notification means for tickets, or null when nothing (an anonymous cheer, a type we do
 * not handle). `messageId` is the delivery's Twitch-Eventsub-Message-Id (the bits' ledger source).
 * Throws a ZodError on a payload that does not match its type.
 */
export function eventSubTicketEvent(type: string, messageId: string, event: unknown): TicketEvent | null {
  switch (type) {
    case 'channel.subscribe':
      return { kind: 'subscription', viewer: viewerOf(EventUser.parse(event)), months: 0 };
    case 'channel.subscription.message': {
      const resub = SubscriptionMessage.parse(event);
      return { kind: 'subscription', viewer: viewerOf(resub), months: resub.cumulative_months };
    }
    case 'channel.subscription.end':
      return { kind: 'subscription_end', viewer: viewerOf(EventUser.parse(event)) };
    case 'channel.cheer': {
      const cheer = Cheer.parse(event);
      // An anonymous cheer has no one to give tickets to.
      if (cheer.is_anonymous || cheer.user_id === null) return null;
      return {
        kind: 'donation',
        viewer: viewerOf({ ...cheer, user_id: cheer.user_id }),
        amount: cheer.bits / 100,
        currency: 'USD',
        sourceId: `twitch:cheer:${messageId}`,
      };
    }
    default:
      return null;
  }
}
