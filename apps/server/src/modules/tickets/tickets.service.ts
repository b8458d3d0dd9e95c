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
import { findUserByIdentity } from '../social/social-accounts.repo.js';
import { linkedAccountCount } from '../users/users.repo.js';
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

/** Tickets of each member, keyed by id; three queries whatever the number of members. */
export async function ticketsForUsers(
  db: Db,
  userIds: readonly number[],
  now: Date,
): Promise<Map<number, TicketsResponse>> {
  const ids = [...new Set(userIds)];
  const donationsSince = new Date(now.getTime() - TICKETS.donationExpiryDays * DAY_MS);
  const [linked, subs, sums] = await Promise.all([
    linkedIds(db, ids),
    activeSubscriptions(db, ids),
    ledgerSums(db, ids, donationsSince, now),
  ]);
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

export class TicketsService {
  readonly #db: Db;
  readonly #bus: EventBus;
  readonly #clock: Clock;
  #deliveriesSincePrune = 0;

  constructor(deps: TicketsServiceDeps) {
    this.#db = deps.db;
    this.#bus = deps.bus;
    this.#clock = deps.clock;
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
   * Donation tickets for a platform identity (bits, a Super Chat, a tip): they count for the
   * account that links the identity, now or once it links. Idempotent on `sourceId` (the
   * platform's own id of the donation). Returns whether they were added.
   */
  async donate(identity: PlatformIdentity, tickets: number, sourceId: string): Promise<boolean> {
    const added = await insertLedgerEntry(this.#db, {
      ...identity,
      kind: 'donation',
      amount: tickets,
      sourceId,
    });
    if (added) {
      const account = await findUserByIdentity(this.#db, identity.platform, identity.platformUserId);
      this.#bus.emit('tickets.donated', { ...identity, userId: account?.id ?? null, tickets, sourceId });
    }
    return added;
  }

  /**
   * The identity subscribes (months = 0) or renews after `months` cumulative months: its
   * subscription counts as started that many calendar months ago (the loyalty tier follows).
   */
  async subscribed(identity: PlatformIdentity, months: number): Promise<void> {
    const now = this.#clock.now();
    const since = new Date(now);
    since.setUTCMonth(since.getUTCMonth() - months);
    await upsertActiveSubscription(this.#db, identity, since, now);
    const account = await findUserByIdentity(this.#db, identity.platform, identity.platformUserId);
    this.#bus.emit('subscription.changed', {
      ...identity,
      userId: account?.id ?? null,
      active: true,
      months,
    });
  }

  /** The identity's subscription ended: its loyalty tickets go. False when none was active. */
  async unsubscribed(identity: PlatformIdentity): Promise<boolean> {
    if (!(await endSubscription(this.#db, identity, this.#clock.now()))) return false;
    const account = await findUserByIdentity(this.#db, identity.platform, identity.platformUserId);
    this.#bus.emit('subscription.changed', {
      ...identity,
      userId: account?.id ?? null,
      active: false,
      months: 0,
    });
    return true;
  }

  /**
   * Whether this webhook delivery is new (true) or was already handled (a platform's retry, or a
   * replay): shared by every instance through the database.
   */
  async firstDelivery(source: string, deliveryId: string): Promise<boolean> {
    const first = await firstDelivery(this.#db, source, deliveryId);
    this.#deliveriesSincePrune += 1;
    if (this.#deliveriesSincePrune >= 500) {
      this.#deliveriesSincePrune = 0;
      await forgetDeliveries(this.#db, new Date(this.#clock.now().getTime() - DELIVERY_MEMORY_MS));
    }
    return first;
  }
}
