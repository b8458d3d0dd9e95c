/**
 * Minimal REST client for `/api`: cookies included, JSON in and out, and one error type built
 * from the server's `{ error, errorKey }` body. The auth client (token refresh) builds on it.
 */

export const API_BASE = '/api';

export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly error: string,
    readonly errorKey?: string,
  ) {
    super(error);
  }
}

export interface ApiFetchInit extends Omit<RequestInit, 'body'> {
  /** Sent as JSON with the matching Content-Type. */
  json?: unknown;
  body?: BodyInit | null;
}

async function readBody(res: Response): Promise<unknown> {
  if (res.status === 204) return undefined;
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('application/json')) {
    try {
      return await res.json();
    } catch {
      return undefined;
    }
  }
  const text = await res.text();
  return text === '' ? undefined : text;
}

function toApiError(status: number, statusText: string, body: unknown): ApiError {
  if (body && typeof body === 'object') {
    const { error, errorKey } = body as { error?: unknown; errorKey?: unknown };
    if (typeof error === 'string') {
      return new ApiError(status, error, typeof errorKey === 'string' ? errorKey : undefined);
    }
  }
  return new ApiError(status, statusText || `HTTP ${status}`);
}

/** How a request leaves: the browser's fetch, or the server's own router when it renders a page (entry-server.tsx). */
type Transport = (url: string, init: RequestInit) => Promise<Response>;
let transport: Transport = (url, init) => fetch(url, init);

/** Sends every later request through `send` (the server's renderer only: it has no network to call itself over). */
export function setApiTransport(send: Transport): void {
  transport = send;
}

/** A plain request to our own server, through the transport: for the calls that read the raw answer. */
export const sendRequest: Transport = (url, init) => transport(url, init);

/** Calls `/api{path}` and resolves with the parsed body; rejects with an `ApiError` on a non-2xx answer. */
export async function apiFetch<T = unknown>(path: string, init: ApiFetchInit = {}): Promise<T> {
  const { json, headers: initHeaders, ...rest } = init;
  const headers = new Headers(initHeaders);
  if (!headers.has('Accept')) headers.set('Accept', 'application/json');
  let body = rest.body;
  if (json !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(json);
  }
  const res = await sendRequest(`${API_BASE}${path}`, { ...rest, body, headers, credentials: 'include' });
  const data = await readBody(res);
  if (!res.ok) throw toApiError(res.status, res.statusText, data);
  return data as T;
}
