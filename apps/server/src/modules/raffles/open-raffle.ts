/**
 * The open raffle in memory (issue 23, point 7): who entered, the account linked to each identity
 * and each account's ticket total, kept by the facts as they come (an entry, a link, a ticket
 * change), so that its public answers are made without reading tens of thousands of entries again
 * from the database — which, on the embedded database, would hold the event loop (and the cars'
 * commands) for half a second each time. The database stays the truth: the model is read from it
 * once, and the draw reads it again in its own transaction.
 *
 * The list it publishes follows the draw's rules exactly (draw-list.ts: one entry per account, its
 * first; banned accounts left out), in the canonical order, made in one pass over the entries kept
 * in the two orders it needs (entered, canonical).
 */
import { compareIdentity, RAFFLE_BASE_WEIGHT, type RaffleEntry } from '@telerace/protocol';
import { compareEntered, type EnteredIdentity } from './draw-list.js';

export interface OpenEntry extends EnteredIdentity {}

type Account = NonNullable<EnteredIdentity['account']>;

export const identityKey = (e: { platform: string; platformUserId: string }) =>
  `${e.platform}:${e.platformUserId}`;

/** Where `item` goes in `sorted` (after its equals). */
function insertionIndex<T>(sorted: readonly T[], item: T, compare: (a: T, b: T) => number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(sorted[middle] as T, item) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

export class OpenRaffle {
  readonly #byIdentity = new Map<string, OpenEntry>();
  /** Earliest entered first (the draw's "first entry of an account"). */
  readonly #entered: OpenEntry[] = [];
  /** The canonical order (the published list's). */
  readonly #canonical: OpenEntry[] = [];
  /** The entries linked to each account. */
  readonly #byAccount = new Map<number, Set<OpenEntry>>();
  /** Ticket totals of the accounts in it. */
  readonly #tickets = new Map<number, number>();

  constructor(readonly raffleId: number) {}

  /** Adds who entered; false when that identity is in already. */
  add(entry: OpenEntry): boolean {
    const key = identityKey(entry);
    if (this.#byIdentity.has(key)) return false;
    const kept = { ...entry };
    this.#byIdentity.set(key, kept);
    this.#link(kept, kept.account);
    this.#entered.splice(insertionIndex(this.#entered, kept, compareEntered), 0, kept);
    this.#canonical.splice(insertionIndex(this.#canonical, kept, compareIdentity), 0, kept);
    return true;
  }

  has(identity: { platform: string; platformUserId: string }): boolean {
    return this.#byIdentity.has(identityKey(identity));
  }

  /** Whether an identity linked to this account entered. */
  hasAccount(userId: number): boolean {
    return this.#byAccount.has(userId);
  }

  /** The accounts whose ticket totals weigh in. */
  accounts(): number[] {
    return [...this.#byAccount.keys()];
  }

  /** An account's ticket total (undefined: unknown, the base weight); answers whether it changed. */
  setTickets(userId: number, tickets: number | undefined): boolean {
    if (this.#tickets.get(userId) === tickets) return false;
    if (tickets === undefined) this.#tickets.delete(userId);
    else this.#tickets.set(userId, tickets);
    return true;
  }

  /**
   * A member's links or standing changed: the identities they link now (`account` null: the member
   * is gone) get them, those they linked before and no longer do are nobody's. Answers whether
   * anything in the raffle changed.
   */
  relink(userId: number, account: { identities: readonly string[]; isBanned: boolean } | null): boolean {
    const now: Account | null = account && { userId, isBanned: account.isBanned };
    const touched = new Set(this.#byAccount.get(userId));
    for (const identity of account?.identities ?? []) {
      const entry = this.#byIdentity.get(identity);
      if (entry) touched.add(entry);
    }
    const linked = new Set(account?.identities ?? []);
    let changed = false;
    for (const entry of touched) {
      const next = linked.has(identityKey(entry)) ? now : null;
      if (next?.userId === entry.account?.userId && next?.isBanned === entry.account?.isBanned) continue;
      this.#link(entry, next);
      changed = true;
    }
    if (!this.#byAccount.has(userId)) this.#tickets.delete(userId);
    return changed;
  }

  #link(entry: OpenEntry, account: Account | null): void {
    const before = entry.account?.userId;
    if (before !== undefined) {
      const rows = this.#byAccount.get(before);
      rows?.delete(entry);
      if (rows?.size === 0) this.#byAccount.delete(before);
    }
    entry.account = account;
    if (account) {
      const rows = this.#byAccount.get(account.userId) ?? new Set();
      rows.add(entry);
      this.#byAccount.set(account.userId, rows);
    }
  }

  /** The list drawn from now, in the canonical order (draw-list.ts's rules, in one pass each way). */
  entries(): RaffleEntry[] {
    const first = new Map<number, OpenEntry>();
    for (const entry of this.#entered) {
      const account = entry.account;
      if (account && !account.isBanned && !first.has(account.userId)) first.set(account.userId, entry);
    }
    const list: RaffleEntry[] = [];
    for (const entry of this.#canonical) {
      const account = entry.account;
      if (account && first.get(account.userId) !== entry) continue;
      const weight = account
        ? Math.max(1, this.#tickets.get(account.userId) ?? RAFFLE_BASE_WEIGHT)
        : RAFFLE_BASE_WEIGHT;
      list.push({
        platform: entry.platform as RaffleEntry['platform'],
        platformUserId: entry.platformUserId,
        displayName: entry.displayName,
        weight,
      });
    }
    return list;
  }
}
