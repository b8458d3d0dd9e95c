import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ACCESS_TOKEN,
  json,
  member,
  renderApp,
  resetBrowser,
  stubLoginServer,
  stubServer,
} from '../../test/app';
import { SESSION_RECHECK_MS } from './AuthProvider';

beforeEach(async () => {
  await resetBrowser();
});

afterEach(() => {
  // The spy on the faked setInterval first: restored after the real timers, it would put the fake
  // back, and the next test's waits (Testing Library's, the query's interval) would never tick.
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const unauthorized = () => json(401, { error: 'Unauthorized', errorKey: 'errors.unauthorized' });

async function logIn(email = 'speedy@example.com', password = 'correct horse') {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText('Email'), email);
  await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Log in' }));
}

describe('login', () => {
  it('posts the credentials, loads the user with the new token and goes home', async () => {
    const fetchMock = stubLoginServer();
    const { router } = renderApp('/login');
    await logIn();
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome to Telerace' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    expect(within(screen.getByRole('banner')).getByRole('link', { name: 'Hi, speedy' })).toBeInTheDocument();
    const login = fetchMock.mock.calls.find(([url]) => url === '/api/login');
    expect(JSON.parse(String(login?.[1]?.body))).toEqual({
      email: 'speedy@example.com',
      password: 'correct horse',
      recaptchaToken: '',
    });
  });

  it.each([
    [
      json(401, { error: 'Invalid credentials', errorKey: 'errors.invalidCredentials' }),
      'Invalid credentials',
    ],
    [json(403, { error: 'This account is banned', errorKey: 'errors.banned' }), 'This account is banned.'],
    [json(400, { error: 'Some server text' }), 'Some server text'],
    [new Response('oops', { status: 500 }), 'Login failed'],
  ])('shows why a login failed (%#)', async (answer, message) => {
    stubServer({
      session: null,
      handle: ({ url }) => (url === '/api/login' ? answer : undefined),
    });
    const { router } = renderApp('/login');
    await logIn();
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(router.state.location.pathname).toBe('/login');
    expect(screen.getByRole('button', { name: 'Log in' })).toBeEnabled();
  });
});

describe('session expiry', () => {
  it('sends an open page to /login with the expiry message when the session cannot be renewed', async () => {
    let alive = true;
    const fetchMock = stubServer({
      session: member,
      handle: ({ url }) => {
        if (!alive && (url === '/api/me' || url === '/api/refresh-token')) return unauthorized();
        return undefined;
      },
    });
    const { router } = renderApp('/car-selection');
    await screen.findByRole('heading', { level: 1, name: 'Choose a car' });
    alive = false;
    // Coming back to the tab re-checks the session at once. The browser's event bubbles to the
    // window, where the query cache listens.
    act(() => {
      document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(await screen.findByText('Your session has expired. Please log in again.')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(within(screen.getByRole('banner')).getByRole('link', { name: 'Log in' })).toBeInTheDocument();
    expect(fetchMock.mock.calls.filter(([url]) => url === '/api/refresh-token')).toHaveLength(2);
  });

  it('re-checks the session every 10 seconds while the tab is visible', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const intervals = vi.spyOn(globalThis, 'setInterval');
    const fetchMock = stubServer({ session: member });
    renderApp('/car-selection');
    await screen.findByRole('heading', { level: 1, name: 'Choose a car' });
    const meCalls = () => fetchMock.mock.calls.filter(([url]) => url === '/api/me').length;
    expect(meCalls()).toBe(1);
    // The recheck's interval is set by an effect that may run just after the page shows (under
    // load it came after the first advance once): wait for it, not for the page. vi.waitFor polls
    // on real timers (testing-library's waitFor polls on setInterval, faked here).
    await vi.waitFor(() => expect(intervals).toHaveBeenCalledWith(expect.any(Function), SESSION_RECHECK_MS));
    await act(async () => {
      vi.advanceTimersByTime(SESSION_RECHECK_MS);
    });
    await vi.waitFor(() => expect(meCalls()).toBe(2));
    await act(async () => {
      vi.advanceTimersByTime(SESSION_RECHECK_MS);
    });
    await vi.waitFor(() => expect(meCalls()).toBe(3));
  });

  it('keeps the member signed in when the access token expired but the refresh works', async () => {
    let token = ACCESS_TOKEN;
    const fetchMock = stubServer({
      session: member,
      handle: ({ url, auth }) => {
        if (url === '/api/refresh-token') return json(200, { accessToken: token });
        if (url === '/api/me')
          return auth === `Bearer ${token}` ? json(200, { user: member }) : unauthorized();
        return undefined;
      },
    });
    const { router } = renderApp('/car-selection');
    await screen.findByRole('heading', { level: 1, name: 'Choose a car' });
    token = 'access-token-2';
    act(() => {
      document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
    });
    await waitFor(() =>
      expect(fetchMock.mock.calls.filter(([url]) => url === '/api/refresh-token')).toHaveLength(2),
    );
    await waitFor(() =>
      expect(
        fetchMock.mock.calls.some(
          ([url, init]) =>
            url === '/api/me' && new Headers(init?.headers).get('Authorization') === 'Bearer access-token-2',
        ),
      ).toBe(true),
    );
    expect(router.state.location.pathname).toBe('/car-selection');
    expect(screen.getByRole('link', { name: 'Hi, speedy' })).toBeInTheDocument();
  });
});
