/**
 * The ticket formula (spec §9), pure so it can be tested exhaustively. The server feeds it the
 * ledger rows and linked accounts it stores; screens explain it with the same constants.
 */
import { LOYALTY_PER_EXTRA_YEAR, LOYALTY_TIERS, TICKETS } from './constants.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Loyalty tickets for one subscription that has lasted `monthsSubscribed` whole months. */
export function loyaltyTickets(monthsSubscribed: number): number {
  const months = Math.max(0, Math.floor(monthsSubscribed));
  let tickets = 0;
  for (const tier of LOYALTY_TIERS) {
    if (months >= tier.months) tickets = tier.tickets;
  }
  const lastTier = LOYALTY_TIERS[LOYALTY_TIERS.length - 1];
  if (lastTier && months >= lastTier.months) {
    const extraYears = Math.floor((months - lastTier.months) / 12);
    tickets += extraYears * LOYALTY_PER_EXTRA_YEAR;
  }
  return tickets;
}

export interface DonationEntry {
  tickets: number;
  receivedAt: Date;
}

export interface TicketInputs {
  linkedAccounts: number;
  /** Whole months of each active subscription; none when the user does not subscribe. */
  activeSubscriptionMonths: readonly number[];
  donations: readonly DonationEntry[];
  /** Sum of admin adjustments (may be negative). */
  adjustments: number;
  now: Date;
}

export function isDonationLive(donation: DonationEntry, now: Date): boolean {
  const age = now.getTime() - donation.receivedAt.getTime();
  return age >= 0 && age < TICKETS.donationExpiryDays * DAY_MS;
}

export function computeTickets(input: TicketInputs): number {
  const loyalty = input.activeSubscriptionMonths.reduce((best, m) => Math.max(best, loyaltyTickets(m)), 0);
  const liveDonations = input.donations
    .filter((d) => isDonationLive(d, input.now))
    .reduce((sum, d) => sum + d.tickets, 0);
  const total =
    TICKETS.base +
    TICKETS.perLinkedAccount * input.linkedAccounts +
    loyalty +
    Math.min(TICKETS.donationCap, liveDonations) +
    input.adjustments;
  return Math.min(TICKETS.totalCap, Math.max(0, total));
}
