/**
 * What each EventSub notification means for tickets (docs/integrations.md "Twitch"): a new
 * subscription (loyalty, just subscribed), a resubscription's cumulative months (the loyalty
 * tier), the end of a subscription (loyalty removed), and bits (100 bits = 1 USD = 1 ticket).
 * The payloads are checked with zod; anything else is ignored.
 */
import { z } from 'zod';
import type { IntegrationsService, Viewer } from '../integrations.service.js';

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
 * Applies one notification. `messageId` is the delivery's Twitch-Eventsub-Message-Id (the bits'
 * ledger source). Throws on a payload that does not match its type (the caller logs it).
 * Returns whether the type is one we handle.
 */
export async function applyEventSubNotification(
  hub: IntegrationsService,
  type: string,
  messageId: string,
  event: unknown,
): Promise<boolean> {
  switch (type) {
    case 'channel.subscribe':
      await hub.subscribed(viewerOf(EventUser.parse(event)), 0);
      return true;
    case 'channel.subscription.message': {
      const resub = SubscriptionMessage.parse(event);
      await hub.subscribed(viewerOf(resub), resub.cumulative_months);
      return true;
    }
    case 'channel.subscription.end':
      await hub.unsubscribed(viewerOf(EventUser.parse(event)));
      return true;
    case 'channel.cheer': {
      const cheer = Cheer.parse(event);
      // An anonymous cheer has no one to give tickets to.
      if (cheer.is_anonymous || cheer.user_id === null) return true;
      await hub.donation(viewerOf({ ...cheer, user_id: cheer.user_id }), {
        amount: cheer.bits / 100,
        currency: 'USD',
        sourceId: `twitch:cheer:${messageId}`,
      });
      return true;
    }
    default:
      return false;
  }
}
