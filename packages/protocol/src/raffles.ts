/**
 * Raffles (spec §1, §4 raffle status / raffle prize, §7 /admin/race/start-raffle|draw-winners|
 * abort-raffle|clear-pending-wins; issue 13). The draw is publicly verifiable:
 * docs/raffle-fairness.md fixes the procedure, `npm run verify-raffle` re-runs it.
 */
import { z } from 'zod';
import { PLATFORMS } from './account.js';
import { PageQuery } from './admin.js';
import { DEFAULT_RAFFLE_RACERS, MIN_RAFFLE_RACERS } from './constants.js';
import { IdParams } from './ids.js';

export const RAFFLE_STATUSES = ['open', 'drawn', 'aborted'] as const;
export const RaffleRecordStatus = z.enum(RAFFLE_STATUSES);

/** The weight of an entry whose identity is linked to no account (chat users). */
export const RAFFLE_BASE_WEIGHT = 100;
/** Racers a raffle may draw at most (a sensible bound for a track). */
export const MAX_RAFFLE_RACERS = 20;
/** How long a winner has to claim, by default (`PRIZE_CLAIM_MINUTES`). */
export const PRIZE_CLAIM_DEFAULT_MINUTES = 15;

export const StartRaffleRequest = z.object({
  racers: z.number().int().min(MIN_RAFFLE_RACERS).max(MAX_RAFFLE_RACERS).default(DEFAULT_RAFFLE_RACERS),
});

/** A platform's id of a user (Twitch user id, YouTube channel id, Discord user id). */
export const PlatformUserId = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[^\n:]+$/, 'no colon or line break');

/** A chat identity entering (the chat integrations' `enter`, or an admin adding one by hand). */
export const RaffleEntryRequest = z.object({
  platform: z.enum(PLATFORMS),
  platformUserId: PlatformUserId,
  displayName: z.string().trim().min(1).max(64),
});
export type RaffleEntryRequest = z.infer<typeof RaffleEntryRequest>;

export const RaffleEntry = z.object({
  platform: z.enum(PLATFORMS),
  platformUserId: z.string(),
  displayName: z.string(),
  /** Frozen at the draw; while open, the weight the entry would have now. */
  weight: z.number().int(),
});
export type RaffleEntry = z.infer<typeof RaffleEntry>;

export const RaffleWinner = z.object({
  platform: z.enum(PLATFORMS),
  platformUserId: z.string(),
  displayName: z.string(),
});

/**
 * GET /api/raffles/{id} and /api/raffles/current (public): what the raffle page polls — everything
 * but the entries, which are paged (`RaffleEntriesPage`) or downloaded whole (`RaffleRecord`).
 */
export const RaffleSummary = z.object({
  id: z.number().int(),
  status: RaffleRecordStatus,
  racers: z.number().int(),
  commitment: z.string(),
  /** Only once drawn. */
  entriesHash: z.string().optional(),
  /** Only once drawn (hex of the 32 seed bytes). */
  seed: z.string().optional(),
  /** The entries drawn from (one per account: docs/raffle-fairness.md). */
  entryCount: z.number().int().nonnegative(),
  /** The entries' weights added up: every chance in the draw (what the draw's confirmation says). */
  totalWeight: z.number().int().nonnegative(),
  /** The entries from each platform (who claims with which sign-in; issue 41 point 2). */
  entriesByPlatform: z.record(z.enum(PLATFORMS), z.number().int().nonnegative()),
  winners: z.array(RaffleWinner),
  openedAt: z.string(),
  drawnAt: z.string().optional(),
  /** Once drawn with winners: until when they can claim their prize (`PRIZE_CLAIM_MINUTES` after the draw). */
  claimUntil: z.string().optional(),
});
export type RaffleSummary = z.infer<typeof RaffleSummary>;

/**
 * GET /api/raffles/{id}/record: the whole published raffle — its summary and every entry in the
 * canonical order — what `npm run verify-raffle` checks and what a viewer saves.
 */
export const RaffleRecord = RaffleSummary.extend({ entries: z.array(RaffleEntry) });
export type RaffleRecord = z.infer<typeof RaffleRecord>;

/** `?page&limit` of a raffle's entries: the admin tables' sizes (10/25/50/100, default 25). */
export const RaffleEntriesQuery = PageQuery;
export type RaffleEntriesQuery = PageQuery;

/** GET /api/raffles/{id}/entries: a page of the entries in the canonical order. */
export const RaffleEntriesPage = z.object({
  data: z.array(RaffleEntry),
  totalCount: z.number().int().nonnegative(),
});
export type RaffleEntriesPage = z.infer<typeof RaffleEntriesPage>;

export const RaffleIdParams = IdParams;

/** A prize as the admin's Race Control tab shows it. */
export const AdminPrize = RaffleWinner.extend({
  id: z.number().int(),
  rank: z.number().int(),
  expiresAt: z.string(),
  state: z.enum(['pending', 'claimed', 'expired', 'cleared']),
});
export type AdminPrize = z.infer<typeof AdminPrize>;

/** GET /api/admin/raffle: the open (or last) raffle with its prizes. */
export const AdminRaffleResponse = z.object({
  raffle: RaffleSummary.nullable(),
  prizes: z.array(AdminPrize),
});
export type AdminRaffleResponse = z.infer<typeof AdminRaffleResponse>;

/** POST /api/admin/race/clear-pending-wins: how many pending prizes were cleared. */
export const ClearPendingWinsResponse = z.object({ cleared: z.number().int().nonnegative() });
export type ClearPendingWinsResponse = z.infer<typeof ClearPendingWinsResponse>;
