/**
 * The public raffle answers — a raffle's summary (GET /api/raffles/{id|current}, what the raffle
 * page polls), a page of its entries and its whole record (what `npm run verify-raffle` reads) —
 * made once per published snapshot, the same objects until the raffle is published again, so the
 * routes' cached answers (http/cached-answer.ts) serialize each once and serve it as bytes to a
 * stream's whole audience (issue 23, point 7).
 *
 * When an answer is made again:
 * - A drawn or aborted raffle never changes (list, weights and winners are frozen; a prize's claim
 *   is not part of it): made once, kept while it is among the last few read.
 * - The open raffle changes with its entries and with the weights of the accounts in it; it is
 *   kept in memory from the facts (open-raffle-keeper.ts), which says when one changed it — an
 *   entry, a ticket change of an account in it, a link, ban or deletion touching it; a fact about
 *   anyone else changes nothing. A stale answer is made again (from memory) at most once per
 *   REMAKE_MIN_MS, and at least every OPEN_MAX_AGE_MS (a donation's tickets expire with time, not
 *   with a fact). The request that finds it stale waits for the new one; requests arriving
 *   meanwhile get the last answer, so a remake never holds the audience.
 */
import type { RaffleEntriesPage, RaffleEntry, RaffleRecord, RaffleSummary } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../clock.js';

/** Everything a raffle publishes. */
export interface RaffleSnapshot {
  summary: RaffleSummary;
  /** In the canonical order. */
  entries: RaffleEntry[];
}

export interface PublishedRafflesDeps {
  clock: Clock;
  log: FastifyBaseLogger;
  /** The raffle as it is now; undefined when there is no such raffle. */
  load(raffleId: number): Promise<RaffleSnapshot | undefined>;
  /** The open raffle's id, else the last one's; undefined before the first raffle. */
  latestId(): Promise<number | undefined>;
}

/** A stale answer is made again at most this often. */
export const REMAKE_MIN_MS = 1_000;
/** The open raffle's answers are made again at least this often. */
export const OPEN_MAX_AGE_MS = 30_000;
/** Closed raffles kept published (each up to a few MB with tens of thousands of entries). */
const CLOSED_KEPT = 8;
/** Entry pages kept per raffle (page × size). */
const PAGES_KEPT = 64;

/** One raffle's public answers: made when first asked for, from one snapshot, then the same objects. */
export class PublishedRaffle {
  #record?: RaffleRecord;
  readonly #pages = new LRUCache<string, RaffleEntriesPage>({ max: PAGES_KEPT });

  constructor(readonly snapshot: RaffleSnapshot) {}

  get open(): boolean {
    return this.snapshot.summary.status === 'open';
  }

  summary(): RaffleSummary {
    return this.snapshot.summary;
  }

  record(): RaffleRecord {
    this.#record ??= { ...this.snapshot.summary, entries: this.snapshot.entries };
    return this.#record;
  }

  /** Page `page` (from 1) of `limit` entries, in the canonical order. */
  entries(page: number, limit: number): RaffleEntriesPage {
    const key = `${page}:${limit}`;
    let body = this.#pages.get(key);
    if (!body) {
      const { entries } = this.snapshot;
      body = { data: entries.slice((page - 1) * limit, page * limit), totalCount: entries.length };
      this.#pages.set(key, body);
    }
    return body;
  }
}

interface Slot {
  published?: PublishedRaffle;
  /** Clock time the kept answer's read started. */
  readAt: number;
  /** Bumped by every fact that changes the raffle: a read begun before it is stale at once. */
  generation: number;
  /** The generation the kept answer was read at. */
  publishedGeneration: number;
  remaking?: { generation: number; done: Promise<PublishedRaffle | undefined> };
}

export class PublishedRaffles {
  readonly #deps: PublishedRafflesDeps;
  /** By raffle id, least recently read first. */
  readonly #slots = new Map<number, Slot>();
  /** The open or last raffle's id (null: none yet), once known; `opened` keeps it. */
  #currentId: number | null | undefined;

  constructor(deps: PublishedRafflesDeps) {
    this.#deps = deps;
  }

  /**
   * The raffle's prepared answers; undefined when there is no such raffle. `fresh`: wait for every
   * fact so far to be in it (an admin's own action answers with its result).
   */
  async get(
    key: number | 'current',
    options: { fresh?: boolean } = {},
  ): Promise<PublishedRaffle | undefined> {
    const id = key === 'current' ? await this.#current() : key;
    if (id === null) return undefined;
    const slot = this.#slot(id);
    const kept = slot.published;
    if (!kept) return this.#remake(id, slot);
    if (!this.#due(slot, kept)) return kept;
    if (options.fresh) return this.#remake(id, slot);
    // Someone is already making it again: the last answer meanwhile.
    if (slot.remaking) return kept;
    if (this.#deps.clock.now().getTime() - slot.readAt < REMAKE_MIN_MS) return kept;
    return this.#remake(id, slot);
  }

  /** Every remake in progress has finished (tests). */
  async settled(): Promise<void> {
    await Promise.all([...this.#slots.values()].map((slot) => slot.remaking?.done));
  }

  // ── facts ───────────────────────────────────────────────────────────────────────────────

  /** A raffle opened: it is the current one now. */
  opened(raffleId: number): void {
    this.#currentId = raffleId;
    this.changed(raffleId);
  }

  /** The raffle changed (an entry, its draw or abort, a weight). */
  changed(raffleId: number): void {
    const slot = this.#slots.get(raffleId);
    if (slot) slot.generation += 1;
  }

  // ── internals ───────────────────────────────────────────────────────────────────────────

  async #current(): Promise<number | null> {
    this.#currentId ??= (await this.#deps.latestId()) ?? null;
    return this.#currentId;
  }

  #due(slot: Slot, kept: PublishedRaffle): boolean {
    if (slot.publishedGeneration !== slot.generation) return true;
    return kept.open && this.#deps.clock.now().getTime() - slot.readAt >= OPEN_MAX_AGE_MS;
  }

  #slot(id: number): Slot {
    let slot = this.#slots.get(id);
    if (slot) this.#slots.delete(id);
    else slot = { readAt: 0, generation: 0, publishedGeneration: -1 };
    this.#slots.set(id, slot);
    this.#forgetOld();
    return slot;
  }

  /** One read at a time per raffle; a read begun before the latest fact is followed by another. */
  async #remake(id: number, slot: Slot): Promise<PublishedRaffle | undefined> {
    const running = slot.remaking;
    if (running) {
      const published = await running.done;
      if (running.generation === slot.generation) return published;
      if (slot.remaking && slot.remaking !== running) return this.#remake(id, slot);
    }
    const generation = slot.generation;
    const readAt = this.#deps.clock.now().getTime();
    const done = this.#deps.load(id).then(
      (snapshot) => {
        if (!snapshot) {
          this.#slots.delete(id);
          return undefined;
        }
        // A fact that arrived during the read leaves it stale (generation moved on).
        if (slot.publishedGeneration <= generation) {
          slot.published = new PublishedRaffle(snapshot);
          slot.publishedGeneration = generation;
          slot.readAt = readAt;
        }
        return slot.published;
      },
      (error: unknown) => {
        // Kept as it was (the next request tries again); the caller with nothing kept gets the error.
        this.#deps.log.warn({ err: error, raffleId: id }, 'the public raffle could not be read');
        if (!slot.published) throw error;
        return slot.published;
      },
    );
    const remaking = { generation, done };
    slot.remaking = remaking;
    try {
      return await done;
    } finally {
      if (slot.remaking === remaking) slot.remaking = undefined;
    }
  }

  /** Closed raffles beyond CLOSED_KEPT, least recently read first; the open one always stays. */
  #forgetOld(): void {
    let closed = [...this.#slots].filter(([, slot]) => !slot.published?.open);
    while (closed.length > CLOSED_KEPT) {
      const [oldest] = closed;
      if (!oldest) break;
      this.#slots.delete(oldest[0]);
      closed = closed.slice(1);
    }
  }
}
