import { IDLE_RACE_STATE } from '@telerace/protocol';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../i18n';
import Admin from '../../routes/Admin';
import { adminUser, json, renderSignedIn, stubFetch } from '../profile/testing';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('admin tabs', () => {
  it('moves between the five tabs with the arrow keys, Home and End', async () => {
    stubFetch({
      'GET /api/admin/race': () =>
        json(200, {
          state: IDLE_RACE_STATE,
          leaderboard: [],
          lapCounter: { kind: 'car', connected: true },
          uncountedCars: [],
        }),
      'GET /api/admin/users': () => json(200, { users: [], totalCount: 0 }),
      'GET /api/admin/logins': () =>
        json(200, {
          logins: [{ id: 1, created_at: new Date().toISOString(), username: 'speedy#12', ip: '203.0.113.9' }],
          totalCount: 1,
        }),
      'GET /api/admin/integrations': () =>
        json(200, { joinCommand: '!join', integrations: [], openRaffleEntries: null, recentEvents: [] }),
    });
    const user = userEvent.setup();
    await renderSignedIn(<Admin />, adminUser);
    const tabs = screen.getAllByRole('tab');
    expect(tabs.map((tab) => tab.textContent)).toEqual([
      'Race Control',
      'Car Status',
      'Users',
      'Login History',
      'Integrations',
    ]);
    expect(tabs[0]).toHaveAttribute('aria-selected', 'true');
    expect(await screen.findByRole('button', { name: 'Start race' })).toBeDisabled();

    await user.click(tabs[0] as HTMLElement);
    await user.keyboard('{ArrowRight}{ArrowRight}');
    expect(screen.getByRole('tab', { name: 'Users' })).toHaveFocus();
    expect(screen.getByRole('tab', { name: 'Users' })).toHaveAttribute('aria-selected', 'true');
    expect(await screen.findByText('No users yet.')).toBeVisible();

    await user.keyboard('{End}');
    expect(screen.getByRole('tab', { name: 'Integrations' })).toHaveFocus();
    expect(await screen.findByText('No raffle open')).toBeVisible();

    await user.keyboard('{ArrowLeft}');
    expect(screen.getByRole('tab', { name: 'Login History' })).toHaveFocus();
    expect(await screen.findByRole('cell', { name: '203.0.113.9' })).toBeVisible();

    await user.keyboard('{ArrowRight}{ArrowRight}');
    expect(screen.getByRole('tab', { name: 'Race Control' })).toHaveFocus();
    await user.keyboard('{ArrowLeft}{Home}');
    expect(screen.getByRole('tab', { name: 'Race Control' })).toHaveAttribute('aria-selected', 'true');
  });
});
