/**
 * POST /api/webhooks/twitch: Twitch EventSub deliveries (docs/integrations.md "Twitch"), on when
 * TWITCH_EVENTSUB_SECRET is set (404 otherwise). Each delivery is signed:
 * `Twitch-Eventsub-Message-Signature` = `sha256=` HMAC-SHA256(secret, message id + timestamp +
 * raw body), checked in constant time; a timestamp more than 10 minutes away is refused (a
 * replay). A notification is applied before it is answered, in one transaction with the record
 * of its message id: a 2xx means its tickets are written, and a failed write is answered 503 so
 * Twitch delivers it again. Twitch wants the answer within a few seconds; the write takes
 * milliseconds (docs/integrations.md "Twitch").
 */
import { ERROR_KEYS } from '@telerace/protocol';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HttpError, notFoundError } from '../../http/errors.js';
import type { TicketEvent } from '../integrations.service.js';
import { WEBHOOK_RATE_LIMIT } from '../tips/tips.routes.js';
import { isValidHmacSha256, rawJsonBody } from '../webhook-signature.js';
import { eventSubTicketEvent } from './eventsub-events.js';

/** Twitch: "make sure the timestamp is not older than 10 minutes". */
export const EVENTSUB_MAX_AGE_MS = 10 * 60 * 1000;
/** The de-duplication source of EventSub message ids (webhook_deliveries). */
export const EVENTSUB_DELIVERY_SOURCE = 'twitch-eventsub';

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

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

const refused = (message: string) => new HttpError(403, message, ERROR_KEYS.invalidWebhookSignature);

export const twitchEventSubRoutes: FastifyPluginAsync<{ secret: string | null }> = async (
  app,
  { secret },
) => {
  rawJsonBody(app);
  const integrations = app.integrations;
  const log = app.log.child({ integration: 'twitch-eventsub' });

  app.post(
    '/webhooks/twitch',
    { config: { rateLimit: WEBHOOK_RATE_LIMIT }, schema: { hide: true } },
    async (request, reply) => {
      if (secret === null) throw notFoundError();
      const messageId = header(request, 'twitch-eventsub-message-id');
      const timestamp = header(request, 'twitch-eventsub-message-timestamp');
      const signature = header(request, 'twitch-eventsub-message-signature');
      const hex = signature?.startsWith('sha256=') ? signature.slice('sha256='.length) : undefined;
      if (
        messageId === undefined ||
        timestamp === undefined ||
        !isValidHmacSha256(
          secret,
          Buffer.concat([Buffer.from(messageId + timestamp, 'utf8'), request.rawBody ?? Buffer.alloc(0)]),
          hex,
        )
      ) {
        throw refused('The webhook signature is missing or wrong.');
      }
      const sentAt = Date.parse(timestamp);
      if (!Number.isFinite(sentAt) || Math.abs(app.clock.now().getTime() - sentAt) > EVENTSUB_MAX_AGE_MS) {
        throw refused('The webhook timestamp is more than 10 minutes away.');
      }
      const parsed = EventSubMessage.safeParse(request.body);
      if (!parsed.success) {
        throw new HttpError(400, 'Not an EventSub message.', ERROR_KEYS.validation);
      }
      const { subscription, challenge, event } = parsed.data;

      switch (header(request, 'twitch-eventsub-message-type')) {
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
          await integrations.delivered(
            { source: EVENTSUB_DELIVERY_SOURCE, deliveryId: messageId },
            ticketEvent,
          );
          return reply.code(204).send();
        }

        default:
          throw new HttpError(400, 'Unknown EventSub message type.', ERROR_KEYS.validation);
      }
    },
  );
};
