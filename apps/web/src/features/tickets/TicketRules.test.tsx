import { LOYALTY_PER_EXTRA_YEAR, LOYALTY_TIERS, TICKETS } from '@telerace/protocol';
import { render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { TicketRules } from './TicketRules';

afterEach(async () => {
  await i18n.changeLanguage('en');
});

describe('ticket rules', () => {
  it('states every number from the business constants', async () => {
    await i18n.changeLanguage('en');
    render(<TicketRules />);
    expect(
      screen.getByText(`${TICKETS.base} tickets for every account, from the day you sign up.`),
    ).toBeVisible();
    expect(
      screen.getByText(new RegExp(`^\\+${TICKETS.perLinkedAccount} tickets for each social account`)),
    ).toBeVisible();
    expect(
      screen.getByText(new RegExp(`up to ${TICKETS.donationCap} donation tickets at a time`)),
    ).toBeVisible();
    expect(
      screen.getByText(
        `The tickets from a donation expire ${TICKETS.donationExpiryDays} days after the donation.`,
      ),
    ).toBeVisible();
    expect(screen.getByText(new RegExp(`more than ${TICKETS.totalCap} tickets in total`))).toBeVisible();
  });

  it('lists one loyalty row per tier plus the yearly bonus', async () => {
    await i18n.changeLanguage('en');
    render(<TicketRules />);
    const table = screen.getByRole('table', { name: 'Loyalty tickets by length of subscription' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => row.textContent)).toEqual([
      ...LOYALTY_TIERS.map((tier) => expect.stringMatching(new RegExp(`\\+${tier.tickets}$`))),
      `Each additional full year+${LOYALTY_PER_EXTRA_YEAR}`,
    ]);
    expect(rows[0]).toHaveTextContent(/^Just subscribed/);
  });

  it('speaks French with the same numbers', async () => {
    await i18n.changeLanguage('fr');
    render(<TicketRules />);
    expect(
      screen.getByText(`Les billets d'un don expirent ${TICKETS.donationExpiryDays} jours après le don.`),
    ).toBeVisible();
    expect(
      screen.getByRole('table', { name: "Billets de fidélité selon la durée de l'abonnement" }),
    ).toBeVisible();
  });
});
