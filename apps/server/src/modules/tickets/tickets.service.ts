/**
 * Tickets (spec §9): base + linked accounts + loyalty (highest tier among active subscriptions) +
 * live donations (capped) + admin adjustments, the total clamped to [0, TICKETS.totalCap] by the
 * protocol's `computeTickets`. The breakdown shows each part before that clamp, so the parts
 * always add up to the unclamped sum and a client can explain a total of 0 or 500.
 */
import {
  computeTickets,
  loyaltyTickets,
  type Platform,
  TICKETS,
  type TicketsResponse,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import type { EventBus } from '../../events.js';
import { findUserByIdentity } from '../../kernel/users.repo.js';
import {
  activeSubscriptions,
  endSubscription,
  firstDelivery,
  forgetDeliveries,
  insertLedgerEntry,
  type LedgerKind,
  type LedgerOwner,
  ledgerSums,
  linkedIds,
  upsertActiveSubscription,
} from './tickets.repo.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole calendar months from `since` to `now` (UTC); a month is complete on the same day and time. */
export function wholeMonthsBetween(since: Date, now: Date): number {
  let months =
    (now.getUTCFullYear() - since.getUTCFullYear()) * 12 + (now.getUTCMonth() - since.getUTCMonth());
  const sinceInMonth = since.getTime() - Date.UTC(since.getUTCFullYear(), since.getUTCMonth());
  const nowInMonth = now.getTime() - Date.UTC(now.getUTCFullYear(), now.getUTCMonth());
  if (nowInMonth < sinceInMonth) months -= 1;
  return Math.max(0, months);
}

/** Linked social accounts of a member (each adds tickets). */
function linkedAccountCount(row: {
  youtubeId: string | null;
  twitchId: string | null;
  discordId: string | null;
}): number {
  return [row.youtubeId, row.twitchId, row.discordId].filter((id) => id !== null).length;
}

/** Tickets of each member, keyed by id; three queries whatever the number of members. */
export async function ticketsForUsers(
  db: Db,
  userIds: readonly number[],
  now: Date,
): Promise<Map<number, TicketsResponse>> {
  const ids = [...new Set(userIds)];
  const donationsSince = new Date(now.getTime() - TICKETS.donationExpiryDays * DAY_MS);
  // One after the other: `db` may be a transaction, one connection that runs one query at a time
  // (pg queues a second one with a deprecation warning; pg 9 refuses it).
  const linked = await linkedIds(db, ids);
  const subs = await activeSubscriptions(db, ids);
  const sums = await ledgerSums(db, ids, donationsSince, now);
  const monthsByUser = new Map<number, number[]>();
  for (const sub of subs) {
    const list = monthsByUser.get(sub.userId) ?? [];
    list.push(wholeMonthsBetween(sub.subscribedSince, now));
    monthsByUser.set(sub.userId, list);
  }
  const sumsByUser = new Map(sums.map((row) => [row.userId, row]));

  const result = new Map<number, TicketsResponse>();
  for (const user of linked) {
    const linkedAccounts = linkedAccountCount(user);
    const months = monthsByUser.get(user.id) ?? [];
    const liveDonations = sumsByUser.get(user.id)?.liveDonations ?? 0;
    const adjustments = sumsByUser.get(user.id)?.adjustments ?? 0;
    // The SQL already kept only live donations: hand them over as one donation received now.
    const tickets = computeTickets({
      linkedAccounts,
      activeSubscriptionMonths: months,
      donations: liveDonations === 0 ? [] : [{ tickets: liveDonations, receivedAt: now }],
      adjustments,
      now,
    });
    result.set(user.id, {
      tickets,
      breakdown: {
        base: TICKETS.base,
        linkedAccounts: linkedAccounts * TICKETS.perLinkedAccount,
        loyalty: months.reduce((best, m) => Math.max(best, loyaltyTickets(m)), 0),
        donations: Math.min(TICKETS.donationCap, liveDonations),
        adjustments,
      },
    });
  }
  return result;
}

export interface TicketsServiceDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  log: FastifyBaseLogger;
}

/** A platform identity: who gave a donation or holds a subscription, with or without an account. */
export interface PlatformIdentity {
  platform: Platform;
  platformUserId: string;
}

/** Webhook deliveries are remembered this long (platforms refuse older ones: Twitch after 10 min). */
const DELIVERY_MEMORY_MS = 24 * 60 * 60 * 1000;
/** Old deliveries are forgotten once every this many deliveries. */
const DELIVERIES_PER_PRUNE = 500;

/** One message of a platform's webhook: its id stays the same on each retry of the message. */
export interface WebhookDelivery {
  source: string;
  deliveryId: string;
}

/** What a platform says changed for an identity's tickets. */
export type TicketChange =
  | { kind: 'donation'; tickets: number; sourceId: string }
  | { kind: 'subscribed'; months: number }
  | { kind: 'unsubscribed' };

/**
 * `unchanged`: a donation already in the ledger (or of no tickets), or no active subscription to
 * end. `duplicate`: its delivery was applied before, nothing was looked at.
 */
export type TicketChangeOutcome = 'applied' | 'unchanged' | 'duplicate';

export class TicketsService {
  readonly #db: Db;
  readonly #bus: EventBus;
  readonly #clock: Clock;
  readonly #log: FastifyBaseLogger;
  #deliveriesSincePrune = 0;

  constructor(deps: TicketsServiceDeps) {
    this.#db = deps.db;
    this.#bus = deps.bus;
    this.#clock = deps.clock;
    this.#log = deps.log;
  }

  /**
   * Tickets of each member, keyed by id, now. `db` is the caller's transaction when the count
   * must see its own writes (an admin's adjustment and its audit record).
   */
  forUsers(userIds: readonly number[], db: Db = this.#db): Promise<Map<number, TicketsResponse>> {
    return ticketsForUsers(db, userIds, this.#clock.now());
  }

  /** Tickets of one member; undefined when there is no such row. */
  async forUser(userId: number, db: Db = this.#db): Promise<TicketsResponse | undefined> {
    return (await this.forUsers([userId], db)).get(userId);
  }

  /**
   * Records tickets an admin gave or took. Idempotent on `sourceId`: replaying the same request
   * adds nothing. Returns whether it was added.
   */
  add(entry: LedgerOwner & { kind: LedgerKind; amount: number; sourceId: string }, db: Db = this.#db) {
    return insertLedgerEntry(db, entry);
  }

  /**
   * Applies what a platform says changed for an identity (a donation, a subscription, its end).
   * Tickets belong to the identity: they count for the account that links it, now or once it
   * links. A donation is idempotent on `sourceId` (the platform's own id of it). A change that
   * came by webhook is written in one transaction with its delivery: a write that fails records
   * nothing, so the platform's retry applies it, and one that commits is never applied again.
   * The fact is emitted after the commit.
   */
  async apply(
    identity: PlatformIdentity,
    change: TicketChange,
    delivery?: WebhookDelivery,
  ): Promise<TicketChangeOutcome> {
    const now = this.#clock.now();
    const outcome = await this.#db.transaction(async (tx) => {
      if (delivery && !(await firstDelivery(tx, delivery, now))) return 'duplicate';
      if (!(await writeChange(tx, identity, change, now))) return 'unchanged';
      const account = await findUserByIdentity(tx, identity.platform, identity.platformUserId);
      return { userId: account?.id ?? null };
    });
    if (delivery) await this.#forgetOldDeliveries(now);
    if (typeof outcome === 'string') return outcome;
    this.#emitChange(identity, change, outcome.userId);
    return 'applied';
  }

  #emitChange(identity: PlatformIdentity, change: TicketChange, userId: number | null): void {
    switch (change.kind) {
      case 'donation':
        this.#bus.emit('tickets.donated', {
          ...identity,
          userId,
          tickets: change.tickets,
          sourceId: change.sourceId,
        });
        return;
      case 'subscribed':
        this.#bus.emit('subscription.changed', { ...identity, userId, active: true, months: change.months });
        return;
      case 'unsubscribed':
        this.#bus.emit('subscription.changed', { ...identity, userId, active: false, months: 0 });
        return;
    }
  }

  /** Now and then, the deliveries no platform can send again are dropped (shared by every instance). */
  async #forgetOldDeliveries(now: Date): Promise<void> {
    this.#deliveriesSincePrune += 1;
    if (this.#deliveriesSincePrune < DELIVERIES_PER_PRUNE) return;
    this.#deliveriesSincePrune = 0;
    try {
      await forgetDeliveries(this.#db, new Date(now.getTime() - DELIVERY_MEMORY_MS));
    } catch (error) {
      // The delivery itself is committed: a failed clean-up must not make the platform send it again.
      this.#log.warn({ err: error }, 'old webhook deliveries not forgotten; next time');
    }
  }
}

/** The change's write; false when it changed nothing. */
async function writeChange(
  db: Db,
  identity: PlatformIdentity,
  change: TicketChange,
  now: Date,
): Promise<boolean> {
  switch (change.kind) {
    case 'donation':
      if (change.tickets <= 0) return false;
      return insertLedgerEntry(db, {
        ...identity,
        kind: 'donation',
        amount: change.tickets,
        sourceId: change.sourceId,
      });
    case 'subscribed': {
      // Renewed after `months` cumulative months: it counts as started that many months ago.
      const since = new Date(now);
      since.setUTCMonth(since.getUTCMonth() - change.months);
      await upsertActiveSubscription(db, identity, since, now);
      return true;
    }
    case 'unsubscribed':
      return endSubscription(db, identity, now);
  }
}
