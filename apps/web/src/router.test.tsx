import { screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { ACCESS_TOKEN, admin, callsTo, member, renderApp, resetBrowser, stubServer } from './test/app';

beforeEach(async () => {
  await resetBrowser();
});

describe('session loading', () => {
  it('shows only "Initializing Session..." while the session is restored', async () => {
    const fetchMock = stubServer({ session: 'pending' });
    const { container } = renderApp('/profile');
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    expect(screen.getByRole('status')).toHaveTextContent('Initializing Session...');
    expect(container).toHaveTextContent(/^Initializing Session\.\.\.$/);
    expect(screen.queryByRole('banner')).not.toBeInTheDocument();
    expect(screen.queryByRole('navigation')).not.toBeInTheDocument();
    expect(screen.queryByRole('main')).not.toBeInTheDocument();
    expect(screen.queryByRole('contentinfo')).not.toBeInTheDocument();
  });

  it('signs a visitor without the session hint out at once, without a refresh round trip', async () => {
    const fetchMock = stubServer({ session: null });
    renderApp('/login');
    // The page is there on the first render: no "Initializing Session..." in between.
    expect(screen.getByRole('main')).toBeInTheDocument();
    expect(screen.queryByText('Initializing Session...')).not.toBeInTheDocument();
    await screen.findByRole('heading', { level: 1 });
    expect(callsTo(fetchMock, 'POST', '/api/refresh-token')).toHaveLength(0);
  });

  it('tries a refresh with cookies, then loads the user with the new token', async () => {
    const fetchMock = stubServer({ session: member });
    renderApp('/profile');
    expect(await screen.findByRole('heading', { level: 1, name: 'Profile' })).toBeInTheDocument();
    const [refreshUrl, refreshInit] = fetchMock.mock.calls[0] ?? [];
    expect(refreshUrl).toBe('/api/refresh-token');
    expect(refreshInit).toMatchObject({ method: 'POST', credentials: 'include' });
    expect(refreshInit?.body).toBeUndefined();
    const [meUrl, meInit] = fetchMock.mock.calls[1] ?? [];
    expect(meUrl).toBe('/api/me');
    expect(new Headers(meInit?.headers).get('Authorization')).toBe(`Bearer ${ACCESS_TOKEN}`);
  });
});

describe('route guards', () => {
  it.each(['/profile', '/settings', '/car-selection', '/complete-registration', '/control/3/car-3'])(
    'sends a signed-out visitor from %s to /login, replacing the history entry',
    async (path) => {
      stubServer({ session: null });
      const { router } = renderApp(path);
      expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/login');
      expect(router.state.historyAction).toBe('REPLACE');
    },
  );

  it('sends a signed-out visitor from /admin to /login', async () => {
    stubServer({ session: null });
    const { router } = renderApp('/admin');
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('sends a signed-in member who is not an admin from /admin to /', async () => {
    stubServer({ session: member });
    const { router } = renderApp('/admin');
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome to Telerace' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    expect(screen.queryByRole('heading', { name: 'Admin' })).not.toBeInTheDocument();
  });

  it('lets an admin into /admin', async () => {
    stubServer({ session: admin });
    const { router } = renderApp('/admin');
    expect(await screen.findByRole('heading', { level: 1, name: 'Admin' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/admin');
  });

  it('treats a failed user fetch after a good refresh as signed out', async () => {
    const fetchMock = stubServer({ session: member });
    fetchMock.mockImplementation(async (input) =>
      String(input) === '/api/refresh-token'
        ? new Response(JSON.stringify({ accessToken: 'x' }), {
            headers: { 'Content-Type': 'application/json' },
          })
        : new Response(JSON.stringify({ error: 'boom' }), { status: 500 }),
    );
    const { router } = renderApp('/profile');
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });
});

describe('public routes', () => {
  it.each([
    ['/leaderboards', 'Leaderboards'],
    ['/signup', 'Sign up'],
    ['/login', 'Log in'],
    ['/forgot-password', 'Forgot password'],
    ['/reset-password/abc123', 'Reset password'],
    ['/signup-success', 'Account created'],
    ['/claim', 'Claim your prize'],
  ])('shows %s to a signed-out visitor', async (path, title) => {
    stubServer({ session: null });
    const { router } = renderApp(path);
    // A lazy route's first import in this worker (the leaderboards' chart library) can take over
    // findBy's default second on a loaded machine; what is tested is the screen, not that import.
    expect(
      await screen.findByRole('heading', { level: 1, name: title }, { timeout: 5_000 }),
    ).toBeInTheDocument();
    expect(router.state.location.pathname).toBe(path);
  });

  it('sends /auth/callback without a code to /login?error=auth_failed', async () => {
    stubServer({ session: null });
    const { router } = renderApp('/auth/callback');
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.search).toBe('?error=auth_failed');
    expect(screen.getByRole('alert')).toHaveTextContent('Authentication failed, try again');
  });

  it('renders the home page at an unknown path without redirecting', async () => {
    stubServer({ session: null });
    const { router } = renderApp('/no/such/page');
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome to Telerace' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/no/such/page');
    // The title follows the screen in an effect: wait for it rather than race the previous test's.
    await waitFor(() => expect(document.title).toBe('Telerace'));
  });

  it('names the tab after the screen', async () => {
    stubServer({ session: null });
    renderApp('/leaderboards');
    await screen.findByRole('heading', { level: 1, name: 'Leaderboards' }, { timeout: 5_000 });
    await waitFor(() => expect(document.title).toBe('Leaderboards · Telerace'));
  });
});
