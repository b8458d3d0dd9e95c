/**
 * What the claim flow needs from the raffles (a port defined by its consumer, like CarPresence):
 * the raffles service offers it, bound to the winning identity (platform, platform user id).
 */
import type { Platform } from '@telerace/protocol';

export interface PrizeIdentity {
  platform: Platform;
  platformUserId: string;
}

export interface PrizeClaims {
  /** Whether the identity has an unexpired, unclaimed prize now. */
  hasPendingPrize(identity: PrizeIdentity): Promise<boolean>;
  /**
   * Marks the identity's pending prize claimed by the member, atomically: of two claims at the
   * same instant exactly one gets it. Null when there is no unexpired pending prize.
   */
  claimPrize(identity: PrizeIdentity, userId: number): Promise<{ prizeId: number } | null>;
  /** Puts a claimed prize back to pending (no car could be given): the winner may claim again. */
  releasePrize(prizeId: number): Promise<unknown>;
}
