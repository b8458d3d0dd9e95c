/** Bodies of the foundation's public REST calls. */
import { z } from 'zod';
import { SITE_LINK_PATTERN, SUPPORT_EMAIL_PATTERN } from './constants.js';

/** GET /api/health, public: the process answers (liveness), and nothing about what runs behind it. */
export const HealthResponse = z.object({ status: z.literal('ok') });
export type HealthResponse = z.infer<typeof HealthResponse>;

/**
 * GET /health on the metrics port (METRICS_PORT: operators and their monitoring, never the
 * public): liveness, the database kind, the version, and whether the database answers.
 */
export const HealthDetails = HealthResponse.extend({
  db: z.enum(['pglite', 'postgres']),
  version: z.string(),
  /** Whether the database answers a trivial query now, and if not a short reason (a code). */
  database: z.object({
    status: z.enum(['reachable', 'unreachable']),
    reason: z.string().optional(),
  }),
});
export type HealthDetails = z.infer<typeof HealthDetails>;

export const ReadyResponse = z.object({ ready: z.boolean() });
export type ReadyResponse = z.infer<typeof ReadyResponse>;

/** What the web app needs to know about the deployment (no secrets). */
/** A link to our own files (a path starting with "/") or to another site over http(s). */
const Link = z.string().regex(SITE_LINK_PATTERN, 'must start with / or http(s)://');

export const PublicConfig = z.object({
  /** Either a video file (played in a <video>) or an embeddable player page (shown in an iframe). */
  promoVideoUrl: Link.nullable(),
  community: z.object({
    /** Live streaming platform (Twitch). */
    streaming: Link.nullable(),
    /** Video sharing platform (YouTube). */
    video: Link.nullable(),
    /** Community chat (Discord). */
    chat: Link.nullable(),
  }),
  recaptchaSiteKey: z.string().nullable(),
  /**
   * Which social sign-in providers are configured (client id and secret set); only those are
   * offered (issue 41).
   */
  socialProviders: z.object({ twitch: z.boolean(), youtube: z.boolean(), discord: z.boolean() }),
  /** Where members write for help (SUPPORT_EMAIL); null: no address, the pages say to contact the organiser. */
  supportEmail: z.string().regex(SUPPORT_EMAIL_PATTERN).nullable(),
});
export type PublicConfig = z.infer<typeof PublicConfig>;
