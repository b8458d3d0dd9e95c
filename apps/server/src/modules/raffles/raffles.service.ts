/**
 * Raffles (docs/raffle-fairness.md): an admin opens one (its seed's commitment published), chat
 * identities enter through `enter` (the chat integrations, or an admin by hand), the draw freezes
 * the weights, picks the winners with the published procedure (draw.ts), reveals the seed and
 * gives each winner a prize to claim by signing in with the winning identity (`claimPrize`, called
 * by the social sign-in). Admin actions write their audit record in their own transaction; facts
 * are emitted after the commit.
 */
import { randomBytes } from 'node:crypto';
import {
  type AdminRaffleResponse,
  ERROR_KEYS,
  PLATFORMS,
  type Platform,
  type RaffleEntryRequest,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { DomainError } from '../../domain-error.js';
import type { EventBus } from '../../events.js';
import { type AuditAction, type AuditActor, recordAudit } from '../../kernel/audit.repo.js';
import type { TicketsService } from '../tickets/tickets.service.js';
import type { UserCache } from '../users/user-cache.js';
import { commitmentOf, drawWinners, entriesHashOf } from './draw.js';
import { type DrawList, drawList } from './draw-list.js';
import { OpenRaffleKeeper } from './open-raffle-keeper.js';
import { type PublishedRaffle, PublishedRaffles, type RaffleSnapshot } from './published-raffles.js';
import { presentEntries, presentPrize, presentSummary, type WeightedEntry } from './raffles.presenter.js';
import {
  accountOf,
  anyHasEntered,
  claimPendingPrize,
  clearExpiredPrizes,
  closeRaffle,
  countEntries,
  deleteEntry,
  type EntryRow,
  entriesByPlatform,
  entriesOf,
  findLatestRaffle,
  findOpenRaffle,
  findRaffle,
  freezeWeights,
  hasPendingPrize,
  type Identity,
  insertEntry,
  insertPrizes,
  insertRaffle,
  prizesOf,
  type RaffleRow,
  releaseClaimedPrize,
} from './raffles.repo.js';

/** The race engine's part: a draw opens the lobby its winners join. */
export interface WinnersLobby {
  openLobby(): Promise<number | null>;
}

export interface RafflesServiceDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  log: FastifyBaseLogger;
  tickets: Pick<TicketsService, 'forUsers'>;
  /** A member's linked identities and standing, when a change of theirs may touch the open raffle. */
  userCache: Pick<UserCache, 'find'>;
  lobby: WinnersLobby;
  /** PRIZE_CLAIM_MINUTES. */
  prizeClaimMinutes: number;
}

const SEED_BYTES = 32;

const notOpen = () => new DomainError('conflict', 'No raffle is open.', ERROR_KEYS.raffleNotOpen);
const notFound = () => new DomainError('not_found', 'Raffle not found.', ERROR_KEYS.raffleNotFound);

const identityOf = ({ platform, platformUserId }: Identity): Identity => ({ platform, platformUserId });
const identityText = (e: Identity) => `${e.platform}:${e.platformUserId}`;

/** The draw list's entries as drawn: identity, display name, weight. */
const weightedEntries = (list: DrawList<EntryRow>): WeightedEntry[] =>
  list.entries.map(({ entry, weight }) => ({ ...identityOf(entry), displayName: entry.displayName, weight }));

export class RafflesService {
  readonly #db: Db;
  readonly #bus: EventBus;
  readonly #clock: Clock;
  readonly #log: FastifyBaseLogger;
  readonly #tickets: Pick<TicketsService, 'forUsers'>;
  readonly #lobby: WinnersLobby;
  readonly #prizeClaimMs: number;
  /** The public answers, prepared once per change (published-raffles.ts); the module feeds it the facts. */
  readonly published: PublishedRaffles;
  /** The open raffle in memory, kept by the facts (open-raffle-keeper.ts). */
  readonly open: OpenRaffleKeeper;

  constructor(deps: RafflesServiceDeps) {
    this.#db = deps.db;
    this.#bus = deps.bus;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#tickets = deps.tickets;
    this.#lobby = deps.lobby;
    this.#prizeClaimMs = deps.prizeClaimMinutes * 60_000;
    this.published = new PublishedRaffles({
      clock: deps.clock,
      log: deps.log,
      load: (raffleId) => this.#snapshot(raffleId),
      latestId: async () => (await findLatestRaffle(this.#db))?.id,
    });
    this.open = new OpenRaffleKeeper({
      db: deps.db,
      clock: deps.clock,
      log: deps.log,
      tickets: deps.tickets,
      userCache: deps.userCache,
      changed: (raffleId) => this.published.changed(raffleId),
    });
  }

  // ── reading ─────────────────────────────────────────────────────────────────────────────

  async isOpen(): Promise<boolean> {
    return (await findOpenRaffle(this.#db)) !== undefined;
  }

  /** Entries per platform in the open raffle (every platform listed); null when none is open. */
  async openEntriesByPlatform(): Promise<Record<Platform, number> | null> {
    const open = await findOpenRaffle(this.#db);
    if (!open) return null;
    const counts = await entriesByPlatform(this.#db, open.id);
    return Object.fromEntries(PLATFORMS.map((platform) => [platform, counts[platform] ?? 0])) as Record<
      Platform,
      number
    >;
  }

  /**
   * The public answers of a raffle (an id, or the open else the last one); not_found when there is
   * none. `fresh`: with every change so far (else the audience's answer, remade at most once a second).
   */
  async publicRaffle(key: number | 'current', options: { fresh?: boolean } = {}): Promise<PublishedRaffle> {
    const published = await this.published.get(key, options);
    if (!published) throw notFound();
    return published;
  }

  /**
   * The Race Control tab: the open (else the last) raffle and its prizes with their state now.
   * `fresh`: with every change so far (an admin's own action answers with its result); the
   * tab's poll may get the public answer, made again at most once a second.
   */
  async adminView(options: { fresh?: boolean } = {}): Promise<AdminRaffleResponse> {
    const published = await this.published.get('current', options);
    if (!published) return { raffle: null, prizes: [] };
    const now = this.#clock.now();
    const { summary } = published.snapshot;
    const prizes = await prizesOf(this.#db, summary.id);
    return { raffle: summary, prizes: prizes.map((prize) => presentPrize(prize, now)) };
  }

  // ── the admin's actions ─────────────────────────────────────────────────────────────────

  /** Opens a raffle: a fresh secret seed, its commitment published. */
  async start(actor: AuditActor, racers: number): Promise<AdminRaffleResponse> {
    const seed = randomBytes(SEED_BYTES).toString('hex');
    const commitment = commitmentOf(seed);
    const alreadyOpen = () =>
      new DomainError('conflict', 'A raffle is already open.', ERROR_KEYS.raffleAlreadyOpen);
    let raffle: RaffleRow;
    try {
      raffle = await this.#db.transaction(async (tx) => {
        if (await findOpenRaffle(tx)) throw alreadyOpen();
        const row = await insertRaffle(tx, { racers, seed, commitment, openedAt: this.#clock.now() });
        await this.#audit(tx, actor, 'raffle.start', row.id, { racers, commitment });
        return row;
      });
    } catch (error) {
      // Two starts at once: the one-open index refuses the second.
      if (isUniqueViolation(error)) throw alreadyOpen();
      throw error;
    }
    this.#bus.emit('raffle.opened', { raffleId: raffle.id, racers, commitment });
    return this.adminView({ fresh: true });
  }

  /**
   * An admin adds an entry by hand (events without chat): `enter`, audited. An identity already in
   * (itself, or its account with another) is a conflict, so the admin is told nothing was added.
   */
  async addEntry(actor: AuditActor, entry: RaffleEntryRequest): Promise<AdminRaffleResponse> {
    const { entered } = await this.enter(entry, actor);
    if (!entered)
      throw new DomainError('conflict', 'Already in this raffle.', ERROR_KEYS.raffleAlreadyEntered);
    return this.adminView({ fresh: true });
  }

  /**
   * Freezes the list and its weights, draws, reveals the seed, creates the winners' prizes, and
   * opens the lobby they will join. One entry per account (draw-list.ts): an account's later
   * identities are merged into its first (kept, with no weight, named in the audit record); a
   * linked account banned since it entered is dropped from the draw (its entries deleted, named
   * in the audit record), so the published list is exactly the one drawn from.
   */
  async draw(actor: AuditActor): Promise<AdminRaffleResponse> {
    const now = this.#clock.now();
    const { raffle, winners } = await this.#db.transaction(async (tx) => {
      // Locked: an entry arriving now waits, then finds the raffle drawn and is refused.
      const open = await findOpenRaffle(tx, 'update');
      if (!open) throw notOpen();
      const list = await this.#drawList(tx, await entriesOf(tx, open.id));
      for (const entry of list.dropped) await deleteEntry(tx, open.id, entry);
      const entries = weightedEntries(list);
      await freezeWeights(tx, open.id, entries);
      const entriesHash = entriesHashOf(entries);
      const drawn = drawWinners(open.seed, entries, open.racers);
      await closeRaffle(tx, open.id, { status: 'drawn', closedAt: now, drawnAt: now, entriesHash });
      const expiresAt = new Date(now.getTime() + this.#prizeClaimMs);
      await insertPrizes(
        tx,
        drawn.map((winner, index) => ({
          raffleId: open.id,
          rank: index + 1,
          ...identityOf(winner),
          displayName: winner.displayName,
          expiresAt,
        })),
      );
      await this.#audit(tx, actor, 'raffle.draw', open.id, {
        entries: entries.length,
        entriesHash,
        seed: open.seed,
        winners: drawn.map(identityText),
        merged: list.merged.map(({ entry, into }) => `${identityText(entry)} → ${identityText(into)}`),
        dropped: list.dropped.map(identityText),
      });
      return { raffle: open, winners: drawn };
    });
    this.#bus.emit('raffle.drawn', {
      raffleId: raffle.id,
      winners: winners.map((w) => ({ ...identityOf(w), displayName: w.displayName })),
      drawnAt: now.toISOString(),
    });
    if (winners.length > 0) await this.#openWinnersLobby(raffle.id);
    return this.adminView({ fresh: true });
  }

  /** Closes the open raffle without a draw (no winners, the seed stays secret). */
  async abort(actor: AuditActor): Promise<AdminRaffleResponse> {
    const raffle = await this.#db.transaction(async (tx) => {
      const open = await findOpenRaffle(tx, 'update');
      if (!open) throw notOpen();
      await closeRaffle(tx, open.id, { status: 'aborted', closedAt: this.#clock.now() });
      await this.#audit(tx, actor, 'raffle.abort', open.id, { entries: await countEntries(tx, open.id) });
      return open;
    });
    this.#bus.emit('raffle.aborted', { raffleId: raffle.id });
    return this.adminView({ fresh: true });
  }

  /**
   * "Clear expired unclaimed wins" (spec §6): the prizes whose claim time ran out unclaimed are
   * cleared now; a win that can still be claimed is kept. Answers how many.
   */
  async clearExpiredWins(actor: AuditActor): Promise<number> {
    const prizeIds = await this.#db.transaction(async (tx) => {
      const ids = await clearExpiredPrizes(tx, this.#clock.now());
      await this.#audit(tx, actor, 'prizes.clear', 'expired', { prizeIds: ids });
      return ids;
    });
    if (prizeIds.length > 0) this.#bus.emit('prizes.cleared', { prizeIds });
    return prizeIds.length;
  }

  // ── entries (the chat integrations' interface) ──────────────────────────────────────────

  /**
   * An identity enters the open raffle; idempotent per (raffle, identity): entering again changes
   * nothing and answers `entered: false`, as does an identity whose account already entered with
   * another (one account, one entry; draw-list.ts also merges those that enter at once or link
   * later). Refused when no raffle is open (conflict) or when the account linked to the identity
   * is banned (forbidden). `actor`: an admin adding it by hand (audited).
   */
  async enter(
    entry: RaffleEntryRequest,
    actor?: AuditActor,
  ): Promise<{ raffleId: number; entered: boolean }> {
    const now = this.#clock.now();
    const outcome = await this.#db.transaction(async (tx) => {
      // Shared lock: entries go in together; a draw holding the row waits for them, and they for it.
      const raffle = await findOpenRaffle(tx, 'share');
      if (!raffle) throw notOpen();
      const account = await accountOf(tx, entry);
      if (account?.isBanned)
        throw new DomainError(
          'forbidden',
          'This account may not enter raffles.',
          ERROR_KEYS.raffleEntryRefused,
        );
      if (account && (await anyHasEntered(tx, raffle.id, account.identities)))
        return { raffleId: raffle.id, entered: false, entries: 0 };
      const entered = await insertEntry(tx, raffle.id, entry, now);
      if (!entered) return { raffleId: raffle.id, entered, entries: 0 };
      if (actor) await this.#audit(tx, actor, 'raffle.add-entry', raffle.id, { ...entry });
      return { raffleId: raffle.id, entered, entries: await countEntries(tx, raffle.id) };
    });
    if (outcome.entered)
      this.#bus.emit('raffle.entered', {
        raffleId: outcome.raffleId,
        ...identityOf(entry),
        displayName: entry.displayName,
        entries: outcome.entries,
        enteredAt: now.toISOString(),
      });
    return { raffleId: outcome.raffleId, entered: outcome.entered };
  }

  // ── prizes (the social sign-in's claim) ─────────────────────────────────────────────────

  /**
   * Marks the identity's pending prize claimed by `userId`, atomically (one conditional update):
   * of simultaneous claims exactly one gets it. Null when the identity has no pending prize
   * (never won, expired, cleared or already claimed).
   */
  async claimPrize(identity: Identity, userId: number): Promise<{ prizeId: number } | null> {
    const claimed = await claimPendingPrize(this.#db, identityOf(identity), userId, this.#clock.now());
    if (!claimed) return null;
    this.#bus.emit('prize.claimed', { prizeId: claimed.id, raffleId: claimed.raffleId, userId });
    return { prizeId: claimed.id };
  }

  /** A claimed prize back to pending (no car could be given), unless it expired or was cleared meanwhile. */
  async releasePrize(prizeId: number): Promise<boolean> {
    const released = await releaseClaimedPrize(this.#db, prizeId, this.#clock.now());
    if (released) this.#bus.emit('prize.released', { prizeId });
    return released;
  }

  hasPendingPrize(identity: Identity): Promise<boolean> {
    return hasPendingPrize(this.#db, identityOf(identity), this.#clock.now());
  }

  // ── internals ───────────────────────────────────────────────────────────────────────────

  /** The list an open raffle would be drawn from now: its accounts' ticket totals read in `db`. */
  async #drawList(db: Db, rows: EntryRow[]): Promise<DrawList<EntryRow>> {
    const accounts = new Set(
      rows.flatMap((row) => (row.account?.isBanned === false ? [row.account.userId] : [])),
    );
    const tickets = await this.#tickets.forUsers([...accounts], db);
    return drawList(rows, (userId) => tickets.get(userId)?.tickets);
  }

  /**
   * Everything the raffle publishes now. A drawn raffle shows the list frozen at its draw; the open
   * one the list it would be drawn from now, from memory (open-raffle-keeper.ts); an aborted one
   * the list it would have been drawn from, read once.
   */
  async #snapshot(raffleId: number): Promise<RaffleSnapshot | undefined> {
    const raffle = await findRaffle(this.#db, raffleId);
    if (!raffle) return undefined;
    const entries =
      raffle.status === 'open'
        ? await this.open.entries(raffleId)
        : presentEntries(
            raffle.status === 'drawn'
              ? (await entriesOf(this.#db, raffleId)).flatMap((row) =>
                  row.weight === null
                    ? []
                    : [{ ...identityOf(row), displayName: row.displayName, weight: row.weight }],
                )
              : weightedEntries(await this.#drawList(this.#db, await entriesOf(this.#db, raffleId))),
          );
    const prizes = await prizesOf(this.#db, raffleId);
    return { summary: presentSummary(raffle, entries, prizes), entries };
  }

  /** The draw has committed: a lobby that cannot open now is logged, the winners open one by joining. */
  async #openWinnersLobby(raffleId: number): Promise<void> {
    try {
      await this.#lobby.openLobby();
    } catch (error) {
      this.#log.warn({ err: error, raffleId }, 'the lobby for the raffle winners could not be opened');
    }
  }

  #audit(
    tx: Db,
    actor: AuditActor,
    action: AuditAction,
    targetId: number | string,
    after: Record<string, unknown>,
  ): Promise<void> {
    return recordAudit(tx, { actor, action, targetType: 'raffle', targetId, before: null, after });
  }
}
