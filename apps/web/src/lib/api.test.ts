import { describe, expect, it, vi } from 'vitest';
import { ApiError, apiFetch } from './api';

function answer(status: number, body: unknown, type = 'application/json') {
  return vi.fn(
    async () =>
      new Response(typeof body === 'string' ? body : JSON.stringify(body), {
        status,
        headers: { 'Content-Type': type },
      }),
  );
}

describe('apiFetch', () => {
  it('calls /api with cookies and sends JSON', async () => {
    const fetchMock = answer(200, { ok: true });
    vi.stubGlobal('fetch', fetchMock);
    await expect(apiFetch('/cars/1/connect', { method: 'POST', json: { code: 'ABC' } })).resolves.toEqual({
      ok: true,
    });
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/cars/1/connect');
    expect(init.credentials).toBe('include');
    expect(init.body).toBe('{"code":"ABC"}');
    expect(new Headers(init.headers).get('Content-Type')).toBe('application/json');
  });

  it("throws an ApiError carrying the server's error and errorKey", async () => {
    vi.stubGlobal(
      'fetch',
      answer(409, { error: 'Email or username already in use', errorKey: 'errors.taken' }),
    );
    const error = await apiFetch('/signup').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 409,
      error: 'Email or username already in use',
      errorKey: 'errors.taken',
    });
  });

  it('throws an ApiError with the HTTP status text when the body is not an error body', async () => {
    vi.stubGlobal('fetch', answer(502, '<html>Bad gateway</html>', 'text/html'));
    const error = await apiFetch('/me').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, errorKey: undefined });
    expect((error as ApiError).error).not.toBe('');
  });

  it('resolves with undefined for 204 No Content', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(null, { status: 204 })),
    );
    await expect(apiFetch('/logout', { method: 'POST' })).resolves.toBeUndefined();
  });
});
