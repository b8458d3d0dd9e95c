/**
 * POST /api/webhooks/twitch: Twitch EventSub deliveries (docs/integrations.md "Twitch"),
 * registered when TWITCH_EVENTSUB_SECRET is set. Each delivery is signed:
 * `Twitch-Eventsub-Message-Signature` = `sha256=` HMAC-SHA256(secret, message id + timestamp +
 * raw body); a timestamp more than 10 minutes away is refused (a replay) — both checked by
 * verified-webhook.ts. A notification is applied before it is answered, in one transaction with
 * the record of its message id: a 2xx means its tickets are written, and a failed write is
 * answered 503 so Twitch delivers it again. Twitch wants the answer within a few seconds; the
 * write takes milliseconds (docs/integrations.md "Twitch").
 */
import { ERROR_KEYS } from '@telerace/protocol';

import { z } from 'zod';
import { HttpError } from '../../http/errors.js';
import type { TicketEvent } from '../integrations.service.js';
import type { SignedWebhook, WebhookDeps } from '../verified-webhook.js';
import { eventSubTicketEvent } from './eventsub-events.js';

/** Twitch: "make sure the timestamp is not older than 10 minutes". */
const EVENTSUB_MAX_AGE_MS = 10 * 60 * 1000;

const MESSAGE_ID = 'twitch-eventsub-message-id';
const MESSAGE_TYPE = 'twitch-eventsub-message-type';
const MESSAGE_TIMESTAMP = 'twitch-eventsub-message-timestamp';

const EventSubMessage = z.object({
  subscription: z.object({
    id: z.string(),
    type: z.string(),
    version: z.string().optional(),
    status: z.string().optional(),
  }),
  challenge: z.string().optional(),
  event: z.unknown().optional(),
});

export const twitchEventSubWebhook = (deps: WebhookDeps): SignedWebhook<typeof EventSubMessage> => {
  const integrations = deps.integrations;
  const log = deps.log.child({ integration: 'twitch-eventsub' });
  return {
    path: '/webhooks/twitch',
    summary: 'Twitch EventSub deliveries',
    description:
      'Signed as Twitch signs them (`Twitch-Eventsub-Message-Signature`, over the message id, the ' +
      'timestamp and the raw body, with TWITCH_EVENTSUB_SECRET); a timestamp more than 10 minutes ' +
      'away is refused. Subscriptions, their ends and cheers give tickets, once per message id.',
    signature: {
      header: 'twitch-eventsub-message-signature',
      signedHeaders: [MESSAGE_ID, MESSAGE_TIMESTAMP],
      sentAt: { header: MESSAGE_TIMESTAMP, maxAgeMs: EVENTSUB_MAX_AGE_MS },
    },
    source: 'twitch-eventsub',
    body: EventSubMessage,
    handle: async ({ body, request, reply, deliver }) => {
      const { subscription, challenge, event } = body;
      // Present: the signature covers it.
      const messageId = String(request.headers[MESSAGE_ID]);

      switch (request.headers[MESSAGE_TYPE]) {
        case 'webhook_callback_verification':
          if (challenge === undefined) throw new HttpError(400, 'No challenge.', ERROR_KEYS.validation);
          log.info({ type: subscription.type }, 'Twitch EventSub subscription verified');
          return reply.code(200).type('text/plain; charset=utf-8').send(challenge);

        case 'revocation': {
          const reason = subscription.status ?? 'no reason given';
          log.warn({ type: subscription.type, reason }, 'Twitch revoked an EventSub subscription');
          integrations.setState(
            'twitch',
            'error',
            `Twitch revoked the EventSub subscription ${subscription.type} (${reason}); run npm run twitch:subscribe again`,
          );
          return reply.code(204).send();
        }

        case 'notification': {
          let ticketEvent: TicketEvent | null;
          try {
            ticketEvent = eventSubTicketEvent(subscription.type, messageId, event);
          } catch (error) {
            // No retry mends a payload we do not understand, and Twitch revokes a subscription
            // whose deliveries keep failing: logged and acknowledged.
            log.error(
              { err: error, type: subscription.type, messageId },
              'EventSub notification not understood',
            );
            return reply.code(204).send();
          }
          if (ticketEvent === null) {
            log.debug({ type: subscription.type }, 'EventSub notification ignored');
            return reply.code(204).send();
          }
          // A failure throws 'unavailable' (503): Twitch delivers the message again.
          await deliver(messageId, ticketEvent);
          return reply.code(204).send();
        }

        default:
          throw new HttpError(400, 'Unknown EventSub message type.', ERROR_KEYS.validation);
      }
    },
  };
};
