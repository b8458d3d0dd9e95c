/**
 * POST /api/webhooks/twitch: Twitch EventSub deliveries (docs/integrations.md "Twitch"), on when
 * TWITCH_EVENTSUB_SECRET is set (404 otherwise). Each delivery is signed:
 * `Twitch-Eventsub-Message-Signature` = `sha256=` HMAC-SHA256(secret, message id + timestamp +
 * raw body), checked in constant time; a timestamp more than 10 minutes away is refused (a
 * replay). Twitch wants a 2xx within a few seconds, so a notification is answered as soon as it
 * is known to be new (de-duplicated in the database on its message id) and applied afterwards.
 */
import { ERROR_KEYS } from '@telerace/protocol';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HttpError, notFoundError } from '../../http/errors.js';
import { WEBHOOK_RATE_LIMIT } from '../tips/tips.routes.js';
import { isValidHmacSha256, rawJsonBody } from '../webhook-signature.js';
import { applyEventSubNotification } from './eventsub-events.js';

/** Twitch: "make sure the timestamp is not older than 10 minutes". */
export const EVENTSUB_MAX_AGE_MS = 10 * 60 * 1000;
/** The de-duplication source of EventSub message ids (TicketsService.firstDelivery). */
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
  // Notifications being applied after their answer: the server waits for them before closing.
  const applying = new Set<Promise<void>>();
  app.addHook('preClose', async () => {
    await Promise.allSettled([...applying]);
  });

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
          if (!(await integrations.firstDelivery(EVENTSUB_DELIVERY_SOURCE, messageId))) {
            return reply.code(204).send();
          }
          await reply.code(204).send();
          // After the answer: Twitch retries a delivery that takes more than a few seconds.
          const work = applyEventSubNotification(integrations, subscription.type, messageId, event)
            .then((handled) => {
              if (!handled) log.debug({ type: subscription.type }, 'EventSub notification ignored');
            })
            .catch((error: unknown) => {
              log.error({ err: error, type: subscription.type, messageId }, 'EventSub notification failed');
            })
            .finally(() => applying.delete(work));
          applying.add(work);
          return reply;
        }

        default:
          throw new HttpError(400, 'Unknown EventSub message type.', ERROR_KEYS.validation);
      }
    },
  );
};
