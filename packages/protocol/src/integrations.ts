/**
 * Chat and stream integrations (issue 14): viewers join the open raffle from Twitch, YouTube and
 * Discord chat; subscriptions give loyalty tickets and donations (bits, Super Chats, tips) give
 * donation tickets. docs/integrations.md describes each platform and the ticket rules.
 */
import { z } from 'zod';
import { PLATFORMS } from './account.js';
import { PlatformUserId } from './raffles.js';

/** The integrations the admin's Integrations tab lists, in this order. */
export const INTEGRATION_IDS = ['twitch', 'youtube', 'discord', 'tips'] as const;
export type IntegrationId = (typeof INTEGRATION_IDS)[number];

/** not_configured: its settings are absent (the quick start); the others are a live connection's. */
export const INTEGRATION_STATES = ['not_configured', 'connecting', 'connected', 'error'] as const;
export type IntegrationState = (typeof INTEGRATION_STATES)[number];

/** The chat command viewers type to enter the open raffle, unless CHAT_JOIN_COMMAND says otherwise. */
export const DEFAULT_CHAT_JOIN_COMMAND = '!join';

/** What a viewer's join command came to; the bot answers it at most once per viewer and raffle. */
export const CHAT_JOIN_OUTCOMES = ['entered', 'already_in', 'no_raffle', 'refused'] as const;
export type ChatJoinOutcome = (typeof CHAT_JOIN_OUTCOMES)[number];

/**
 * What the bots announce in every chat they can write to (docs/integrations.md "Announcements"):
 * a raffle opened, its winners, a race's podium. Each one is a run-time setting an admin switches
 * off in the Integrations tab (`ChatAnnouncementSettings`, part of GET/PATCH /api/admin/settings).
 */
export const CHAT_ANNOUNCEMENTS = ['raffle_opened', 'raffle_winners', 'race_podium'] as const;
export type ChatAnnouncementKind = (typeof CHAT_ANNOUNCEMENTS)[number];

/** The setting that switches each announcement on or off. */
export const CHAT_ANNOUNCEMENT_SETTINGS = {
  raffle_opened: 'chat_announce_raffle_opened',
  raffle_winners: 'chat_announce_raffle_winners',
  race_podium: 'chat_announce_race_podium',
} as const satisfies Record<ChatAnnouncementKind, `chat_announce_${ChatAnnouncementKind}`>;

/** The announcements' switches among the run-time settings; all on by default. */
export const ChatAnnouncementSettings = z.object({
  chat_announce_raffle_opened: z.boolean(),
  chat_announce_raffle_winners: z.boolean(),
  chat_announce_race_podium: z.boolean(),
});
export type ChatAnnouncementSettings = z.infer<typeof ChatAnnouncementSettings>;

export const IntegrationStatus = z.object({
  id: z.enum(INTEGRATION_IDS),
  state: z.enum(INTEGRATION_STATES),
  /** What the connection is (the channel, the live chat, the guild), when configured. */
  target: z.string().nullable(),
  /** The last error and when it happened (kept after a recovery, so the admin sees it). */
  lastError: z.string().nullable(),
  lastErrorAt: z.iso.datetime().nullable(),
  /** Since when the integration is in its state. */
  since: z.iso.datetime(),
  /** Whether "Send test message" works for it (a chat it can write to). */
  canSendTestMessage: z.boolean(),
});
export type IntegrationStatus = z.infer<typeof IntegrationStatus>;

export const INTEGRATION_EVENT_KINDS = ['join', 'subscription', 'subscription_end', 'donation'] as const;

/** One of the recent things the integrations saw (newest first in the admin's list). */
export const IntegrationEvent = z.object({
  at: z.iso.datetime(),
  platform: z.enum(PLATFORMS),
  kind: z.enum(INTEGRATION_EVENT_KINDS),
  displayName: z.string(),
  /** join: its outcome; subscription: cumulative months; donation: the amount and currency. */
  outcome: z.enum(CHAT_JOIN_OUTCOMES).optional(),
  months: z.number().int().nonnegative().optional(),
  amount: z.number().nonnegative().optional(),
  currency: z.string().optional(),
  /** Donation tickets it gave (0 when the currency has no rate). */
  tickets: z.number().int().nonnegative().optional(),
});
export type IntegrationEvent = z.infer<typeof IntegrationEvent>;

/** GET /api/admin/integrations. */
export const AdminIntegrationsResponse = z.object({
  joinCommand: z.string(),
  integrations: z.array(IntegrationStatus),
  /** Entries per platform in the open raffle; null when no raffle is open. */
  openRaffleEntries: z.record(z.enum(PLATFORMS), z.number().int().nonnegative()).nullable(),
  recentEvents: z.array(IntegrationEvent),
});
export type AdminIntegrationsResponse = z.infer<typeof AdminIntegrationsResponse>;

export const IntegrationIdParams = z.object({ id: z.enum(INTEGRATION_IDS) });

/** POST /api/admin/integrations/{id}/test-message (204). */
export const TestMessageRequest = z.object({ message: z.string().trim().min(1).max(200).optional() });
export type TestMessageRequest = z.infer<typeof TestMessageRequest>;

/** An ISO 4217 currency code. */
export const CurrencyCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{3}$/, 'a three-letter currency code')
  .transform((code) => code.toUpperCase());

/**
 * POST /api/webhooks/tips: a tip service's relay (StreamElements, Streamlabs, a Ko-fi-style
 * webhook), signed with TIPS_WEBHOOK_SECRET. `id` is the tip's own id: a replay adds nothing.
 */
export const TipWebhookBody = z.object({
  id: z.string().trim().min(1).max(128),
  platform: z.enum(PLATFORMS),
  platformUserId: PlatformUserId,
  displayName: z.string().trim().min(1).max(64).optional(),
  amount: z.number().positive().max(1_000_000),
  currency: CurrencyCode,
});
export type TipWebhookBody = z.infer<typeof TipWebhookBody>;
