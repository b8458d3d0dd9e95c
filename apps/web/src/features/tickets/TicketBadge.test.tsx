import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { json, renderSignedIn, stubFetch } from '../profile/testing';
import { TicketBadge } from './TicketBadge';

const tickets = {
  tickets: 135,
  breakdown: { base: 100, linkedAccounts: 25, loyalty: 15, donations: 0, adjustments: -5 },
};

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('TicketBadge', () => {
  it('shows the count and opens the ticket-info modal, which Escape closes', async () => {
    stubFetch({ 'GET /api/me/tickets': () => json(200, tickets) });
    const user = userEvent.setup();
    await renderSignedIn(<TicketBadge />);
    const badge = await screen.findByRole('button', { name: 'Tickets: 135, about tickets' });
    expect(badge).toHaveTextContent('135');

    await user.click(badge);
    const dialog = await screen.findByRole('dialog', { name: 'Your tickets' });
    const breakdown = within(dialog).getByRole('region', { name: 'Where your tickets come from' });
    expect(within(breakdown).getByText('Linked accounts').nextSibling).toHaveTextContent('25');
    expect(within(breakdown).getByText('Adjustments').nextSibling).toHaveTextContent('-5');
    expect(within(dialog).getByRole('heading', { name: 'How tickets work' })).toBeVisible();

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(badge).toHaveFocus();
  });

  it('stays hidden and only logs when the tickets cannot be fetched', async () => {
    const fetchMock = stubFetch({ 'GET /api/me/tickets': () => json(500, { error: 'boom' }) });
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    await renderSignedIn(<TicketBadge />);
    await waitFor(() =>
      expect(consoleError).toHaveBeenCalledWith('Failed to fetch tickets', expect.anything()),
    );
    expect(fetchMock).toHaveBeenCalled();
    expect(screen.queryByRole('button')).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
