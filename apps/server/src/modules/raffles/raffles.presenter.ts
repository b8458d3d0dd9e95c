/** Raffle rows as the protocol shows them: the public raffle's summary and entries, the admin's prizes. */
import {
  type AdminPrize,
  canonicalOrder,
  PLATFORMS,
  type RaffleEntry,
  type RaffleSummary,
} from '@telerace/protocol';
import type { Identity, PrizeRow, RaffleRow } from './raffles.repo.js';

export interface WeightedEntry extends Identity {
  displayName: string;
  weight: number;
}

export function prizeState(prize: PrizeRow, now: Date): AdminPrize['state'] {
  if (prize.claimedAt !== null) return 'claimed';
  if (prize.clearedAt !== null) return 'cleared';
  return prize.expiresAt.getTime() <= now.getTime() ? 'expired' : 'pending';
}

const winnerOf = (prize: PrizeRow) => ({
  platform: prize.platform as Identity['platform'],
  platformUserId: prize.platformUserId,
  displayName: prize.displayName,
});

/**
 * The public raffle's summary: the seed and the entries' hash only once drawn (before, the
 * commitment alone); winners first drawn first.
 */
export function presentSummary(
  raffle: RaffleRow,
  entries: readonly RaffleEntry[],
  prizes: readonly PrizeRow[],
): RaffleSummary {
  const entriesByPlatform = Object.fromEntries(PLATFORMS.map((platform) => [platform, 0])) as Record<
    RaffleEntry['platform'],
    number
  >;
  for (const entry of entries) entriesByPlatform[entry.platform] += 1;
  const drawn = raffle.status === 'drawn';
  // Every prize of a draw has the same claim time; the latest is the one a winner can still make.
  const claimUntil = Math.max(...prizes.map((prize) => prize.expiresAt.getTime()));
  return {
    id: raffle.id,
    status: raffle.status as RaffleSummary['status'],
    racers: raffle.racers,
    commitment: raffle.commitment,
    ...(drawn && raffle.entriesHash !== null ? { entriesHash: raffle.entriesHash, seed: raffle.seed } : {}),
    entryCount: entries.length,
    totalWeight: entries.reduce((sum, entry) => sum + entry.weight, 0),
    entriesByPlatform,
    winners: [...prizes].sort((a, b) => a.rank - b.rank).map(winnerOf),
    openedAt: raffle.openedAt.toISOString(),
    ...(raffle.drawnAt ? { drawnAt: raffle.drawnAt.toISOString() } : {}),
    ...(prizes.length > 0 ? { claimUntil: new Date(claimUntil).toISOString() } : {}),
  };
}

/** The entries in the canonical order the hash is taken in, as published. */
export function presentEntries(entries: readonly WeightedEntry[]): RaffleEntry[] {
  return canonicalOrder(entries).map(({ platform, platformUserId, displayName, weight }) => ({
    platform,
    platformUserId,
    displayName,
    weight,
  }));
}

export function presentPrize(prize: PrizeRow, now: Date): AdminPrize {
  return {
    ...winnerOf(prize),
    id: prize.id,
    rank: prize.rank,
    expiresAt: prize.expiresAt.toISOString(),
    state: prizeState(prize, now),
  };
}
