/**
 * Keeps the open raffle in memory (open-raffle.ts) from the facts, one change at a time: read
 * once from the database (when it opens, or when first asked for after a start), then an entry, a
 * member's link or ban, a ticket total changed — each one read of a row or two, never the whole
 * list again. A change that fails to apply drops the model: the next question reads it afresh.
 * `changed(raffleId)` tells the public answers (published-raffles.ts) when a fact did change it.
 */
import { PLATFORMS, type RaffleEntry } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import type { TicketsService } from '../tickets/tickets.service.js';
import type { UserCache } from '../users/user-cache.js';
import { identityKey, OpenRaffle } from './open-raffle.js';
import { accountOf, entriesOf, type Identity } from './raffles.repo.js';

/** Ticket totals change with time too (a donation expires): read again this often. */
export const OPEN_TICKETS_MAX_AGE_MS = 30_000;

export interface OpenRaffleKeeperDeps {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  tickets: Pick<TicketsService, 'forUsers'>;
  userCache: Pick<UserCache, 'find'>;
  /** A fact changed what the open raffle publishes. */
  changed(raffleId: number): void;
}

interface Held {
  model: OpenRaffle;
  ticketsReadAt: number;
}

export class OpenRaffleKeeper {
  readonly #deps: OpenRaffleKeeperDeps;
  #held: Held | null = null;
  /** One change at a time, in the order the facts came. */
  #chain: Promise<unknown> = Promise.resolve();

  constructor(deps: OpenRaffleKeeperDeps) {
    this.#deps = deps;
  }

  /** The open raffle's list now, in the canonical order (read from the database when not held). */
  entries(raffleId: number): Promise<RaffleEntry[]> {
    return this.#run(async () => {
      const held = this.#held?.model.raffleId === raffleId ? this.#held : await this.#load(raffleId);
      if (this.#now() - held.ticketsReadAt >= OPEN_TICKETS_MAX_AGE_MS) await this.#readTickets(held);
      return held.model.entries();
    });
  }

  // ── facts ───────────────────────────────────────────────────────────────────────────────

  opened(raffleId: number): void {
    this.#apply(() => this.#load(raffleId));
  }

  closed(raffleId: number): void {
    this.#apply(async () => {
      if (this.#held?.model.raffleId === raffleId) this.#held = null;
    });
  }

  entered(entry: Identity & { raffleId: number; displayName: string; enteredAt?: string }): void {
    const held = this.#heldFor(entry.raffleId);
    if (!held) return;
    this.#apply(async () => {
      if (this.#held !== held || held.model.has(entry)) return;
      const account = await accountOf(this.#deps.db, entry);
      held.model.add({
        platform: entry.platform,
        platformUserId: entry.platformUserId,
        displayName: entry.displayName,
        enteredAt: entry.enteredAt ? new Date(entry.enteredAt) : this.#deps.clock.now(),
        account: account ? { userId: account.userId, isBanned: account.isBanned } : null,
      });
      if (account) await this.#readTickets(held, [account.userId]);
      this.#deps.changed(held.model.raffleId);
    });
  }

  /** An account's ticket total changed: its entry's weight, if it is in. */
  ticketsChanged(userId: number | null): void {
    const held = this.#held;
    if (userId === null || !held?.model.hasAccount(userId)) return;
    this.#apply(async () => {
      if (this.#held === held && (await this.#readTickets(held, [userId])))
        this.#deps.changed(held.model.raffleId);
    });
  }

  /**
   * A member's row changed (a link, an unlink, a ban, a deletion, or only a theme): it touches the
   * raffle when the account is in it or now links an identity that entered.
   */
  memberChanged(userId: number): void {
    const held = this.#held;
    if (!held) return;
    this.#apply(async () => {
      if (this.#held !== held) return;
      const row = await this.#deps.userCache.find(userId);
      const identities = row
        ? PLATFORMS.flatMap((platform) => {
            const id = { twitch: row.twitchId, youtube: row.youtubeId, discord: row.discordId }[platform];
            return id ? [identityKey({ platform, platformUserId: id })] : [];
          })
        : [];
      const relinked = held.model.relink(userId, row ? { identities, isBanned: row.isBanned } : null);
      const weighs = held.model.hasAccount(userId) && (await this.#readTickets(held, [userId]));
      if (relinked || weighs) this.#deps.changed(held.model.raffleId);
    });
  }

  /** Every change in progress has been applied (tests). */
  async settled(): Promise<void> {
    await this.#chain;
  }

  // ── internals ───────────────────────────────────────────────────────────────────────────

  #heldFor(raffleId: number): Held | null {
    return this.#held?.model.raffleId === raffleId ? this.#held : null;
  }

  #now(): number {
    return this.#deps.clock.now().getTime();
  }

  /** A fact's change: applied in turn; a failure is logged (and the model dropped) by #run. */
  #apply(work: () => Promise<unknown>): void {
    this.#run(work).catch(() => undefined);
  }

  #run<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(work);
    this.#chain = run.catch((error: unknown) => {
      // Whatever it held may have missed a change now: the next question reads it afresh.
      this.#deps.log.warn({ err: error }, 'the open raffle could not be kept up to date');
      this.#held = null;
    });
    return run;
  }

  /** Reads the raffle's entries and its accounts' totals: once, not per change. */
  async #load(raffleId: number): Promise<Held> {
    const model = new OpenRaffle(raffleId);
    for (const row of await entriesOf(this.#deps.db, raffleId)) model.add(row);
    const held: Held = { model, ticketsReadAt: 0 };
    await this.#readTickets(held);
    this.#held = held;
    return held;
  }

  /** Reads the totals of some accounts (all of them by default); answers whether one changed. */
  async #readTickets(held: Held, userIds?: number[]): Promise<boolean> {
    const ids = userIds ?? held.model.accounts();
    const readAt = this.#now();
    const totals = await this.#deps.tickets.forUsers(ids, this.#deps.db);
    let changed = false;
    for (const id of ids) changed = held.model.setTickets(id, totals.get(id)?.tickets) || changed;
    if (!userIds) held.ticketsReadAt = readAt;
    return changed;
  }
}
