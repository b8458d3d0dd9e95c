import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  ApiError,
  authFetch,
  getAccessToken,
  onSessionExpired,
  onTokenChange,
  resetAuthClient,
  setAccessToken,
} from './auth-client';

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

const unauthorized = () => json(401, { error: 'Unauthorized', errorKey: 'errors.unauthorized' });

interface Call {
  url: string;
  method: string;
  auth: string | null;
  credentials: RequestCredentials | undefined;
}

/**
 * A fake server at the network boundary: `/api/data` accepts only the current valid token, the
 * refresh call hands out `fresh-N` (or fails), and every call is recorded.
 */
function fakeServer({ refreshSucceeds = true, validToken = 'fresh-1' } = {}) {
  const calls: Call[] = [];
  /** The URLs whose 401 the client has read: from then on the request is deciding to renew. */
  const refusalsRead: string[] = [];
  let refreshes = 0;
  let releaseRefresh: () => void = () => {};
  const refreshGate = new Promise<void>((resolve) => {
    releaseRefresh = resolve;
  });
  let gateRefresh = false;
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const method = init?.method ?? 'GET';
    const auth = new Headers(init?.headers).get('Authorization');
    calls.push({ url, method, auth, credentials: init?.credentials });
    if (url === '/api/refresh-token') {
      refreshes += 1;
      if (gateRefresh) await refreshGate;
      if (!refreshSucceeds) return unauthorized();
      return json(200, { accessToken: `fresh-${refreshes}` });
    }
    if (url === '/api/login')
      return json(401, { error: 'Invalid credentials', errorKey: 'errors.invalidCredentials' });
    if (url === '/api/always-401') return unauthorized();
    if (auth !== `Bearer ${validToken}`) return observedRefusal(url);
    return json(200, { ok: true, url });
  });
  /** A 401 that records when the client has read it (the observable moment the tests wait for). */
  function observedRefusal(url: string): Response {
    const response = unauthorized();
    const read = response.json.bind(response);
    response.json = async () => {
      const body: unknown = await read();
      refusalsRead.push(url);
      return body;
    };
    return response;
  }
  vi.stubGlobal('fetch', fetchMock);
  return {
    calls,
    fetchMock,
    /** Holds refresh answers until `release()` so concurrent 401s pile up on one refresh. */
    holdRefresh() {
      gateRefresh = true;
      return { release: () => releaseRefresh() };
    },
    callsTo: (path: string) => calls.filter((call) => call.url === `/api${path}`),
    /** How many 401s of `/api/data…` the client has read so far. */
    refusalsReadOf: (prefix: string) => refusalsRead.filter((url) => url.startsWith(`/api${prefix}`)).length,
  };
}

beforeEach(() => {
  resetAuthClient();
});

afterEach(() => {
  resetAuthClient();
});

describe('authFetch', () => {
  it('calls /api with cookies and the current token as a bearer header', async () => {
    const server = fakeServer({ validToken: 'token-a' });
    setAccessToken('token-a');
    await expect(authFetch('/data')).resolves.toEqual({ ok: true, url: '/api/data' });
    expect(server.calls).toEqual([
      { url: '/api/data', method: 'GET', auth: 'Bearer token-a', credentials: 'include' },
    ]);
  });

  it('sends no Authorization header without a token, and does not try a refresh on its 401', async () => {
    const server = fakeServer();
    await expect(authFetch('/data')).rejects.toMatchObject({ status: 401, errorKey: 'errors.unauthorized' });
    expect(server.calls).toHaveLength(1);
    expect(server.calls[0]?.auth).toBeNull();
  });

  it('sends JSON bodies and parses the answer with the given schema', async () => {
    const server = fakeServer({ validToken: 't' });
    setAccessToken('t');
    const body = await authFetch(
      '/data',
      { method: 'POST', json: { a: 1 } },
      z.object({ ok: z.literal(true) }),
    );
    expect(body).toEqual({ ok: true });
    const [, init] = server.fetchMock.mock.calls[0] ?? [];
    expect(init?.body).toBe('{"a":1}');
    expect(new Headers(init?.headers).get('Content-Type')).toBe('application/json');
  });

  it('rejects with an ApiError carrying status, error and errorKey', async () => {
    fakeServer();
    const failure = await authFetch('/login', { method: 'POST', json: {} }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({
      status: 401,
      error: 'Invalid credentials',
      errorKey: 'errors.invalidCredentials',
    });
  });
});

describe('token refresh on 401', () => {
  it('refreshes once and retries the request with the new token', async () => {
    const server = fakeServer({ validToken: 'fresh-1' });
    setAccessToken('expired');
    await expect(authFetch('/data')).resolves.toMatchObject({ ok: true });
    expect(server.calls.map((call) => [call.url, call.auth])).toEqual([
      ['/api/data', 'Bearer expired'],
      ['/api/refresh-token', null],
      ['/api/data', 'Bearer fresh-1'],
    ]);
    expect(server.callsTo('/refresh-token')[0]).toMatchObject({ method: 'POST', credentials: 'include' });
    expect(getAccessToken()).toBe('fresh-1');
  });

  it('makes ONE refresh for N concurrent 401s, then retries each request once', async () => {
    const server = fakeServer({ validToken: 'fresh-1' });
    const gate = server.holdRefresh();
    setAccessToken('expired');
    const requests = Array.from({ length: 5 }, (_, i) => authFetch(`/data?i=${i}`));
    await vi.waitFor(() => expect(server.callsTo('/refresh-token')).toHaveLength(1));
    // Every request has read its 401 while the refresh is still out: they all wait for that one.
    await vi.waitFor(() => expect(server.refusalsReadOf('/data')).toBe(5));
    gate.release();
    const results = await Promise.all(requests);
    expect(results.map((result) => (result as { url: string }).url)).toEqual(
      Array.from({ length: 5 }, (_, i) => `/api/data?i=${i}`),
    );
    expect(server.callsTo('/refresh-token')).toHaveLength(1);
    for (let i = 0; i < 5; i += 1) {
      expect(server.callsTo(`/data?i=${i}`).map((call) => call.auth)).toEqual([
        'Bearer expired',
        'Bearer fresh-1',
      ]);
    }
  });

  it('does not refresh again for a 401 that comes back after another request already renewed the token', async () => {
    const server = fakeServer({ validToken: 'fresh-1' });
    setAccessToken('expired');
    let answerLate: (response: Response) => void = () => {};
    const realServer = server.fetchMock.getMockImplementation();
    server.fetchMock.mockImplementationOnce(
      () =>
        new Promise<Response>((resolve) => {
          answerLate = resolve;
        }),
    );
    // Sent with the old token; its answer is held back.
    const late = authFetch('/data?late');
    server.fetchMock.mockImplementation(realServer ?? (async () => unauthorized()));
    await authFetch('/data?first');
    expect(getAccessToken()).toBe('fresh-1');
    answerLate(unauthorized());
    await expect(late).resolves.toMatchObject({ url: '/api/data?late' });
    expect(server.callsTo('/refresh-token')).toHaveLength(1);
    // The held first answer is not recorded: what is recorded is the retry, with the renewed token.
    expect(server.callsTo('/data?late').map((call) => call.auth)).toEqual(['Bearer fresh-1']);
  });

  it('retries a request only once: a second 401 is the answer', async () => {
    const server = fakeServer();
    setAccessToken('expired');
    await expect(authFetch('/always-401')).rejects.toMatchObject({ status: 401 });
    expect(server.callsTo('/always-401')).toHaveLength(2);
    expect(server.callsTo('/refresh-token')).toHaveLength(1);
  });

  it.each(['/login', '/refresh-token'])('never refreshes for a 401 from %s', async (path) => {
    const server = fakeServer({ refreshSucceeds: false });
    const expired = vi.fn();
    onSessionExpired(expired);
    setAccessToken('expired');
    await expect(authFetch(path, { method: 'POST' })).rejects.toMatchObject({ status: 401 });
    expect(server.calls).toHaveLength(1);
    expect(expired).not.toHaveBeenCalled();
  });

  it('does not refresh for other errors', async () => {
    const server = fakeServer();
    server.fetchMock.mockImplementationOnce(async () =>
      json(403, { error: 'Admins only', errorKey: 'errors.forbidden' }),
    );
    setAccessToken('t');
    await expect(authFetch('/data')).rejects.toMatchObject({ status: 403, errorKey: 'errors.forbidden' });
    expect(server.callsTo('/refresh-token')).toHaveLength(0);
  });

  it('tells token listeners about the renewed token', async () => {
    fakeServer();
    const listener = vi.fn();
    onTokenChange(listener);
    setAccessToken('expired');
    await authFetch('/data');
    expect(listener.mock.calls).toEqual([['expired'], ['fresh-1']]);
  });
});

describe('refresh failure', () => {
  it('ends the session once for N concurrent 401s: token cleared, expiry listeners called once', async () => {
    const server = fakeServer({ refreshSucceeds: false });
    const gate = server.holdRefresh();
    const expired = vi.fn();
    onSessionExpired(expired);
    setAccessToken('expired');
    const requests = Array.from({ length: 4 }, (_, i) =>
      authFetch(`/data?i=${i}`).catch((error: unknown) => error),
    );
    await vi.waitFor(() => expect(server.callsTo('/refresh-token')).toHaveLength(1));
    await vi.waitFor(() => expect(server.refusalsReadOf('/data')).toBe(4));
    gate.release();
    const failures = await Promise.all(requests);
    for (const failure of failures) expect(failure).toMatchObject({ status: 401 });
    expect(expired).toHaveBeenCalledTimes(1);
    expect(getAccessToken()).toBeNull();
    expect(server.callsTo('/refresh-token')).toHaveLength(1);
    // No request was retried.
    expect(server.calls.filter((call) => call.url.startsWith('/api/data'))).toHaveLength(4);
  });

  it('does not start another refresh (nor another expiry) for 401s arriving after the session ended', async () => {
    const server = fakeServer({ refreshSucceeds: false });
    const expired = vi.fn();
    onSessionExpired(expired);
    setAccessToken('expired');
    await authFetch('/data').catch(() => undefined);
    expect(expired).toHaveBeenCalledTimes(1);
    setAccessToken('expired-again');
    await authFetch('/data').catch(() => undefined);
    // A new session that fails again is a new expiry.
    expect(expired).toHaveBeenCalledTimes(2);
    expect(server.callsTo('/refresh-token')).toHaveLength(2);
  });

  it('keeps the session when the refresh is rate limited', async () => {
    const server = fakeServer();
    server.fetchMock.mockImplementation(async (input) =>
      String(input) === '/api/refresh-token'
        ? json(429, { error: 'Too many requests', errorKey: 'errors.tooManyRequests' })
        : unauthorized(),
    );
    const expired = vi.fn();
    onSessionExpired(expired);
    setAccessToken('expired');
    await expect(authFetch('/data')).rejects.toMatchObject({ status: 401 });
    expect(expired).not.toHaveBeenCalled();
  });

  it('keeps the session when the refresh cannot reach the server (the request fails, the next one tries again)', async () => {
    const server = fakeServer();
    server.fetchMock.mockImplementation(async (input) => {
      if (String(input) === '/api/refresh-token') throw new TypeError('Failed to fetch');
      return unauthorized();
    });
    const expired = vi.fn();
    onSessionExpired(expired);
    setAccessToken('expired');
    await expect(authFetch('/data')).rejects.toMatchObject({ status: 401 });
    expect(expired).not.toHaveBeenCalled();
    expect(getAccessToken()).toBe('expired');
  });
});
