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
  RAFFLE_BASE_WEIGHT,
  type RaffleEntryRequest,
  type RafflePublic,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { DomainError } from '../../domain-error.js';
import type { EventBus } from '../../events.js';
import { type AuditAction, type AuditActor, recordAudit } from '../admin/audit.repo.js';
import type { TicketsService } from '../tickets/tickets.service.js';
import { isUniqueViolation } from '../users/users.repo.js';
import { commitmentOf, drawWinners, entriesHashOf } from './draw.js';
import { presentPrize, presentRaffle, type WeightedEntry } from './raffles.presenter.js';
import {
  accountOf,
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
  lobby: WinnersLobby;
  /** PRIZE_CLAIM_MINUTES. */
  prizeClaimMinutes: number;
}

const SEED_BYTES = 32;

const notOpen = () => new DomainError('conflict', 'No raffle is open.', ERROR_KEYS.raffleNotOpen);
const notFound = () => new DomainError('not_found', 'Raffle not found.', ERROR_KEYS.raffleNotFound);

const identityOf = ({ platform, platformUserId }: Identity): Identity => ({ platform, platformUserId });
const identityText = (e: Identity) => `${e.platform}:${e.platformUserId}`;

/** How long a public raffle answer is shared by the requests that ask for it. */
const PUBLIC_ANSWER_MS = 2_000;

export class RafflesService {
  readonly #db: Db;
  readonly #bus: EventBus;
  readonly #clock: Clock;
  readonly #publicAnswers = new Map<number | 'current', { at: number; answer: Promise<RafflePublic> }>();
  readonly #log: FastifyBaseLogger;
  readonly #tickets: Pick<TicketsService, 'forUsers'>;
  readonly #lobby: WinnersLobby;
  readonly #prizeClaimMs: number;

  constructor(deps: RafflesServiceDeps) {
    this.#db = deps.db;
    this.#bus = deps.bus;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#tickets = deps.tickets;
    this.#lobby = deps.lobby;
    this.#prizeClaimMs = deps.prizeClaimMinutes * 60_000;
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

  /** GET /api/raffles/{id}. */
  publicRaffle(id: number): Promise<RafflePublic> {
    return this.#publicAnswer(id, () => findRaffle(this.#db, id));
  }

  /** GET /api/raffles/current: the open raffle, else the last one. */
  currentRaffle(): Promise<RafflePublic> {
    return this.#publicAnswer('current', () => findLatestRaffle(this.#db));
  }

  /**
   * The public answers are what a stream's audience polls (the raffle page reads it every 5 s):
   * each is made once and shared by every request for PUBLIC_ANSWER_MS, and dropped at once by
   * every raffle fact (`forgetPublicAnswers`). Only the weights of an open raffle's entries (ticket
   * totals, which change elsewhere) may be that much behind.
   */
  #publicAnswer(key: number | 'current', find: () => Promise<RaffleRow | undefined>): Promise<RafflePublic> {
    const now = this.#clock.now().getTime();
    const cached = this.#publicAnswers.get(key);
    if (cached && now - cached.at < PUBLIC_ANSWER_MS) return cached.answer;
    const answer = find().then((raffle) => {
      if (!raffle) throw notFound();
      return this.#present(raffle);
    });
    this.#publicAnswers.set(key, { at: now, answer });
    // A failure is not kept: the next request asks again.
    answer.catch(() => {
      if (this.#publicAnswers.get(key)?.answer === answer) this.#publicAnswers.delete(key);
    });
    return answer;
  }

  /** A raffle fact arrived: the public answers are made again on the next request. */
  forgetPublicAnswers(): void {
    this.#publicAnswers.clear();
  }

  /** The Race Control tab: the open (else the last) raffle and its prizes with their state now. */
  async adminView(): Promise<AdminRaffleResponse> {
    const raffle = await findLatestRaffle(this.#db);
    if (!raffle) return { raffle: null, prizes: [] };
    const now = this.#clock.now();
    const prizes = await prizesOf(this.#db, raffle.id);
    return {
      raffle: await this.#present(raffle),
      prizes: prizes.map((prize) => presentPrize(prize, now)),
    };
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
    return this.adminView();
  }

  /** An admin adds an entry by hand (events without chat): `enter`, audited. */
  async addEntry(actor: AuditActor, entry: RaffleEntryRequest): Promise<AdminRaffleResponse> {
    await this.enter(entry, actor);
    return this.adminView();
  }

  /**
   * Freezes the weights, draws, reveals the seed, creates the winners' prizes, and opens the lobby
   * they will join. A linked account banned since it entered is dropped from the draw (its entry
   * deleted, named in the audit record), so the published list is exactly the one drawn from.
   */
  async draw(actor: AuditActor): Promise<AdminRaffleResponse> {
    const now = this.#clock.now();
    const { raffle, winners } = await this.#db.transaction(async (tx) => {
      // Locked: an entry arriving now waits, then finds the raffle drawn and is refused.
      const open = await findOpenRaffle(tx, 'update');
      if (!open) throw notOpen();
      const { entries, dropped } = await this.#weighted(tx, open.id);
      for (const entry of dropped) await deleteEntry(tx, open.id, entry);
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
        dropped: dropped.map(identityText),
      });
      return { raffle: open, winners: drawn };
    });
    this.#bus.emit('raffle.drawn', {
      raffleId: raffle.id,
      winners: winners.map((w) => ({ ...identityOf(w), displayName: w.displayName })),
      drawnAt: now.toISOString(),
    });
    if (winners.length > 0) await this.#openWinnersLobby(raffle.id);
    return this.adminView();
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
    return this.adminView();
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
   * nothing and answers `entered: false`. Refused when no raffle is open (conflict) or when the
   * account linked to the identity is banned (forbidden). `actor`: an admin adding it by hand
   * (audited).
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

  /**
   * The entries with their weight now: the ticket total of the linked account (at least 1), else
   * the base weight; entries of banned accounts apart.
   */
  async #weighted(db: Db, raffleId: number): Promise<{ entries: WeightedEntry[]; dropped: EntryRow[] }> {
    const rows = await entriesOf(db, raffleId);
    const dropped = rows.filter((row) => row.account?.isBanned);
    const kept = rows.filter((row) => !row.account?.isBanned);
    const tickets = await this.#tickets.forUsers(
      kept.flatMap((row) => (row.account ? [row.account.userId] : [])),
      db,
    );
    const entries = kept.map((row) => ({
      ...identityOf(row),
      displayName: row.displayName,
      weight: row.account
        ? Math.max(1, tickets.get(row.account.userId)?.tickets ?? RAFFLE_BASE_WEIGHT)
        : RAFFLE_BASE_WEIGHT,
    }));
    return { entries, dropped };
  }

  async #present(raffle: RaffleRow): Promise<RafflePublic> {
    const prizes = await prizesOf(this.#db, raffle.id);
    if (raffle.status !== 'drawn')
      // Open: the weights the entries would be drawn with now (an aborted raffle froze none).
      return presentRaffle(raffle, (await this.#weighted(this.#db, raffle.id)).entries, prizes);
    const frozen = (await entriesOf(this.#db, raffle.id)).map((row) => ({
      ...identityOf(row),
      displayName: row.displayName,
      weight: row.weight ?? RAFFLE_BASE_WEIGHT,
    }));
    return presentRaffle(raffle, frozen, prizes);
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
