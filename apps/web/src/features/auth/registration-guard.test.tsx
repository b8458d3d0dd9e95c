/**
 * A social sign-up must accept the terms before anything else (issue 13): a signed-in member whose
 * registration is not complete is sent from any guarded page to /complete-registration, and once
 * it is complete goes on to the destination the callback stored.
 */
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { ACCESS_TOKEN, json, member, renderApp, resetBrowser, stubServer } from '../../test/app';

beforeEach(async () => {
  await resetBrowser();
});

const newcomer = { ...member, username: 'twitchy#40', registration_complete: false };

describe('unfinished registration', () => {
  it.each(['/car-selection', '/profile', '/admin'])('sends %s to /complete-registration', async (path) => {
    stubServer({ session: { ...newcomer, is_admin: path === '/admin' } });
    const { router } = renderApp(path);
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, twitchy!' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/complete-registration');
  });

  it('leaves public pages alone', async () => {
    stubServer({ session: newcomer });
    const { router } = renderApp('/claim');
    expect(await screen.findByRole('heading', { level: 1, name: 'Claim your prize' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/claim');
  });

  it('goes from the callback to complete registration, then to the stored final destination', async () => {
    const user = userEvent.setup();
    let registered = false;
    stubServer({
      session: null,
      handle: ({ method, url, auth }) => {
        if (method === 'POST' && url === '/api/auth/exchange')
          return json(200, { accessToken: ACCESS_TOKEN });
        if (auth !== `Bearer ${ACCESS_TOKEN}`) return undefined;
        if (url === '/api/me') return json(200, { user: { ...newcomer, registration_complete: registered } });
        if (method === 'POST' && url === '/api/auth/complete-registration') {
          registered = true;
          return json(200, { user: { ...newcomer, registration_complete: true } });
        }
        return undefined;
      },
    });
    const { router } = renderApp(
      '/auth/callback?token=code-1&destination=%2Fcomplete-registration&final_destination=%2Fcar-selection',
    );
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, twitchy!' })).toBeInTheDocument();
    expect(window.sessionStorage.getItem('final_destination')).toBe('/car-selection');
    await user.click(screen.getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: 'Finish sign-up' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Choose a car' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/car-selection');
  });
});
