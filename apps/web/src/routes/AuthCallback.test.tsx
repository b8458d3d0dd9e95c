/**
 * /auth/callback (spec §2, login CSRF fix of issue 10): the page exchanges `token`, a one-time
 * code, for a session and never adopts it as an access token.
 */
import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { ACCESS_TOKEN, json, member, renderApp, resetBrowser, stubServer } from '../test/app';

beforeEach(async () => {
  await resetBrowser();
});

const refused = () =>
  json(400, {
    error:
      'This sign-in link is invalid, was already used or comes from another browser. Please sign in again.',
    errorKey: 'errors.loginCodeInvalid',
  });

/** The server: `good-code` is this browser's; any other code is refused. */
function server(
  exchange: (code: unknown) => Response = (code) =>
    code === 'good-code' ? json(200, { accessToken: ACCESS_TOKEN }) : refused(),
) {
  return stubServer({
    session: null,
    handle: ({ method, url, auth, body }) => {
      if (method === 'POST' && url === '/api/auth/exchange') {
        return exchange((body as { code?: unknown } | undefined)?.code);
      }
      // Only the session the exchange started reads the member.
      if (url === '/api/me' && auth === `Bearer ${ACCESS_TOKEN}`) return json(200, { user: member });
      return undefined;
    },
  });
}

const exchanges = (fetchMock: ReturnType<typeof stubServer>) =>
  fetchMock.mock.calls.filter(([url]) => url === '/api/auth/exchange');

const bearers = (fetchMock: ReturnType<typeof stubServer>) =>
  fetchMock.mock.calls
    .map(([, init]) => new Headers(init?.headers).get('Authorization'))
    .filter((auth): auth is string => auth !== null);

describe('AuthCallback', () => {
  it('exchanges the code, then keeps the final destination and the control token and opens the destination', async () => {
    const fetchMock = server();
    const { router } = renderApp(
      '/auth/callback?token=good-code&destination=%2Fcar-selection&final_destination=%2Fcontrol%2F7%2Fcar-7&controlToken=ct-1&carId=7',
    );
    expect(await screen.findByRole('heading', { level: 1, name: 'Choose a car' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/car-selection');
    expect(router.state.historyAction).toBe('REPLACE');
    expect(exchanges(fetchMock)).toHaveLength(1);
    expect(JSON.parse(String(exchanges(fetchMock)[0]?.[1]?.body))).toEqual({ code: 'good-code' });
    expect(exchanges(fetchMock)[0]?.[1]).toMatchObject({ method: 'POST', credentials: 'include' });
    expect(window.sessionStorage.getItem('final_destination')).toBe('/control/7/car-7');
    expect(window.sessionStorage.getItem('controlToken:7')).toBe('ct-1');
    expect(screen.getByRole('link', { name: 'Hi, speedy' })).toBeInTheDocument();
    expect(bearers(fetchMock)).toContain(`Bearer ${ACCESS_TOKEN}`);
  });

  it('does not adopt an access token put in the address: it is only offered to the exchange, which refuses it', async () => {
    const fetchMock = server();
    const { router } = renderApp('/auth/callback?token=attackers-access-token&controlToken=ct-x&carId=7');
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.search).toBe('?error=auth_failed');
    expect(screen.getByRole('alert')).toHaveTextContent('Authentication failed, try again');
    expect(bearers(fetchMock)).not.toContain('Bearer attackers-access-token');
    expect(exchanges(fetchMock)).toHaveLength(1);
    expect(window.sessionStorage.getItem('controlToken:7')).toBeNull();
  });

  it("refuses someone else's code (another browser's, used or expired): back to log in, nothing kept", async () => {
    const fetchMock = server();
    const { router } = renderApp(
      '/auth/callback?token=attackers-code&destination=%2Fcar-selection&final_destination=%2Fcontrol%2F7%2Fcar-7&controlToken=ct-x&carId=7',
    );
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.search).toBe('?error=auth_failed');
    expect(screen.getByRole('alert')).toHaveTextContent('Authentication failed, try again');
    expect(screen.queryByRole('link', { name: /Hi,/ })).toBeNull();
    expect(exchanges(fetchMock)).toHaveLength(1);
    expect(bearers(fetchMock)).toEqual([]);
    expect(window.sessionStorage.getItem('final_destination')).toBeNull();
    expect(window.sessionStorage.getItem('controlToken:7')).toBeNull();
  });

  it('says so in French on a French page', async () => {
    await i18n.changeLanguage('fr');
    server();
    renderApp('/auth/callback?token=attackers-code');
    expect(await screen.findByRole('alert')).toHaveTextContent("L'authentification a échoué");
  });

  it('goes home by default and never to another site', async () => {
    server();
    const { router } = renderApp('/auth/callback?token=good-code&destination=%2F%2Fevil.example');
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome to Telerace' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });

  it('logs out with "There was an issue fetching your profile." when the user cannot be loaded', async () => {
    const fetchMock = stubServer({
      session: null,
      handle: ({ method, url }) => {
        if (method === 'POST' && url === '/api/auth/exchange')
          return json(200, { accessToken: ACCESS_TOKEN });
        if (url === '/api/me') return json(500, { error: 'boom' });
        return undefined;
      },
    });
    const { router } = renderApp('/auth/callback?token=good-code');
    expect(await screen.findByText('There was an issue fetching your profile.')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(fetchMock).toHaveBeenCalledWith('/api/logout', expect.objectContaining({ method: 'POST' }));
  });

  it('exchanges the code once', async () => {
    const fetchMock = server();
    renderApp('/auth/callback?token=good-code');
    await screen.findByRole('heading', { level: 1, name: 'Welcome to Telerace' });
    expect(exchanges(fetchMock)).toHaveLength(1);
  });
});
