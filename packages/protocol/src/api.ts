/** Bodies of the foundation's public REST calls. */
import { z } from 'zod';

export const HealthResponse = z.object({
  status: z.literal('ok'),
  db: z.enum(['pglite', 'postgres']),
  version: z.string(),
});
export type HealthResponse = z.infer<typeof HealthResponse>;

export const ReadyResponse = z.object({ ready: z.boolean() });
export type ReadyResponse = z.infer<typeof ReadyResponse>;

/** What the web app needs to know about the deployment (no secrets). */
export const PublicConfig = z.object({
  promoVideoUrl: z.string().url().nullable(),
  community: z.object({
    /** Live streaming platform (Twitch). */
    streaming: z.string().url().nullable(),
    /** Video sharing platform (YouTube). */
    video: z.string().url().nullable(),
    /** Community chat (Discord). */
    chat: z.string().url().nullable(),
  }),
  recaptchaSiteKey: z.string().nullable(),
});
export type PublicConfig = z.infer<typeof PublicConfig>;
