/**
 * The list a raffle is drawn from, made from who entered (docs/raffle-fairness.md, "One account,
 * one entry"). Pure: the draw, the open raffle's page and the tests use the same rules.
 *
 * - Identities linked to no account enter as themselves, with the base weight.
 * - The identities an account has linked (Twitch, YouTube, Discord) count as ONE entry: its first
 *   (the earliest entered; at the same millisecond, the first in the canonical byte order), with
 *   the account's ticket total as its weight (at least 1). The account's other identities are
 *   merged into it: they are not drawn, so one account never has more than one chance nor wins
 *   more than one place. Linking is read when the list is made, so an identity linked after it
 *   entered is merged too.
 * - Identities of a banned account are dropped.
 */
import { compareIdentity, RAFFLE_BASE_WEIGHT } from '@telerace/protocol';

export interface Identity {
  platform: string;
  platformUserId: string;
}

/** Who entered: an identity, when, and the live account linked to it now (if any). */
export interface EnteredIdentity extends Identity {
  displayName: string;
  enteredAt: Date;
  account: { userId: number; isBanned: boolean } | null;
}

export interface DrawListEntry<E extends EnteredIdentity> {
  /** The identity the entry is drawn (and its prize bound) as. */
  entry: E;
  weight: number;
  /** The account it stands for, if any. */
  userId: number | null;
}

export interface DrawList<E extends EnteredIdentity> {
  /** In the order the identities entered. */
  entries: DrawListEntry<E>[];
  /** An account's later identities, each with the entry it counts under. */
  merged: { entry: E; into: E }[];
  /** Identities of banned accounts. */
  dropped: E[];
}

/** Earliest entered first; at the same instant, the canonical (byte) order. */
export function compareEntered(a: EnteredIdentity, b: EnteredIdentity): number {
  return a.enteredAt.getTime() - b.enteredAt.getTime() || compareIdentity(a, b);
}

/**
 * The draw list from every identity that entered. `ticketsOf(userId)`: the account's ticket total
 * now (undefined when unknown: the base weight).
 */
export function drawList<E extends EnteredIdentity>(
  entered: readonly E[],
  ticketsOf: (userId: number) => number | undefined,
): DrawList<E> {
  const list: DrawList<E> = { entries: [], merged: [], dropped: [] };
  const firstOfAccount = new Map<number, E>();
  for (const identity of [...entered].sort(compareEntered)) {
    const account = identity.account;
    if (account === null) {
      list.entries.push({ entry: identity, weight: RAFFLE_BASE_WEIGHT, userId: null });
      continue;
    }
    if (account.isBanned) {
      list.dropped.push(identity);
      continue;
    }
    const first = firstOfAccount.get(account.userId);
    if (first) {
      list.merged.push({ entry: identity, into: first });
      continue;
    }
    firstOfAccount.set(account.userId, identity);
    const weight = Math.max(1, ticketsOf(account.userId) ?? RAFFLE_BASE_WEIGHT);
    list.entries.push({ entry: identity, weight, userId: account.userId });
  }
  return list;
}
