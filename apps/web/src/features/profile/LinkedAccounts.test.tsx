/**
 * Linked accounts (spec §2 Profile; issue 13): Link is a navigation to `/api/connect/{platform}`
 * carrying the access token, the server's answer comes back in the address and is shown once, and
 * Unlink is confirmed and may be refused as the last way to sign in.
 */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { LinkedAccounts } from './LinkedAccounts';
import { callsTo, json, member, renderSignedIn, stubFetch } from './testing';

beforeEach(async () => {
  await i18n.changeLanguage('en');
});
afterEach(() => vi.unstubAllGlobals());

describe('LinkedAccounts (issue 13)', () => {
  it('links through /api/connect/{platform} with the access token in the query', async () => {
    stubFetch({});
    await renderSignedIn(<LinkedAccounts user={member} onSaved={vi.fn()} />);
    expect(screen.getByRole('link', { name: 'Link your Discord account' })).toHaveAttribute(
      'href',
      '/api/connect/discord?token=access-token-1',
    );
    expect(screen.queryByRole('link', { name: 'Link your Twitch account' })).toBeNull();
    expect(screen.getByText('ID tw-777')).toBeVisible();
  });

  it.each([
    ['?linked=youtube', 'status', 'Your YouTube account is now linked.'],
    ['?error=identity_taken', 'alert', 'This social account is already linked to another Telerace account.'],
    ['?error=auth_failed', 'alert', 'Linking the account failed. Please try again.'],
  ] as const)('shows the outcome %s once, then takes it out of the address', async (search, role, text) => {
    stubFetch({});
    const { router } = await renderSignedIn(<LinkedAccounts user={member} onSaved={vi.fn()} />, member, {
      at: `/profile${search}`,
    });
    expect(await screen.findByRole(role)).toHaveTextContent(text);
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(router.state.location.pathname).toBe('/profile');
    expect(screen.getByRole(role)).toHaveTextContent(text);
  });

  it('says a refused link in French', async () => {
    await i18n.changeLanguage('fr');
    stubFetch({});
    await renderSignedIn(<LinkedAccounts user={member} onSaved={vi.fn()} />, member, {
      at: '/profile?error=identity_taken',
    });
    expect(await screen.findByRole('alert')).toHaveTextContent('Ce compte social est déjà lié');
  });

  it('explains a refused unlink of the last way to sign in, and keeps the account linked', async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({
      'POST /api/me/disconnect': () =>
        json(409, { error: 'last sign-in method', errorKey: 'errors.lastSignInMethod' }),
    });
    const onSaved = vi.fn();
    const socialOnly = { ...member, has_password: false };
    await renderSignedIn(<LinkedAccounts user={socialOnly} onSaved={onSaved} />, socialOnly);
    await user.click(screen.getByRole('button', { name: 'Disconnect Twitch' }));
    const dialog = screen.getByRole('dialog', { name: 'Disconnect Twitch?' });
    await user.click(within(dialog).getByRole('button', { name: 'Disconnect' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      "You can't remove your last way to sign in. Set a password or link another account first.",
    );
    expect(callsTo(fetchMock, 'POST', '/api/me/disconnect')).toEqual([{ platform: 'twitch' }]);
    expect(onSaved).not.toHaveBeenCalled();
  });
});
