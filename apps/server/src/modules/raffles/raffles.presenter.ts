/** Raffle rows as the protocol shows them: the public raffle JSON and the admin's prizes. */
import type { AdminPrize, RafflePublic } from '@telerace/protocol';
import { canonicalOrder } from './draw.js';
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
 * The public raffle: entries in the canonical order the hash is taken in, winners first drawn
 * first; the seed and the entries' hash only once drawn (before, the commitment alone).
 */
export function presentRaffle(
  raffle: RaffleRow,
  entries: readonly WeightedEntry[],
  prizes: readonly PrizeRow[],
): RafflePublic {
  const drawn = raffle.status === 'drawn';
  return {
    id: raffle.id,
    status: raffle.status as RafflePublic['status'],
    racers: raffle.racers,
    commitment: raffle.commitment,
    ...(drawn && raffle.entriesHash !== null ? { entriesHash: raffle.entriesHash, seed: raffle.seed } : {}),
    entries: canonicalOrder(entries).map(({ platform, platformUserId, displayName, weight }) => ({
      platform,
      platformUserId,
      displayName,
      weight,
    })),
    winners: [...prizes].sort((a, b) => a.rank - b.rank).map(winnerOf),
    openedAt: raffle.openedAt.toISOString(),
    ...(raffle.drawnAt ? { drawnAt: raffle.drawnAt.toISOString() } : {}),
  };
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
