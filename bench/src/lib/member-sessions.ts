/**
 * Signed-in members for runs longer than an access token lives (15 minutes): each keeps the
 * refresh cookie of its log-in and trades it for a new token, as the web app does, once the
 * token is older than `REFRESH_AFTER_MS`. Used by the soak run (its drivers, its spectators and
 * its admin).
 */
import { BENCH_ADMIN } from './telerace-api.js';

/** Refreshed well before the 15 minutes: whatever opens with the token has 5 minutes at least. */
const REFRESH_AFTER_MS = 10 * 60_000;
const PASSWORD = 'bench-driver-Passw0rd!';

/** The server's refresh cookie (apps/server/src/modules/auth/session-cookies.ts). */
const REFRESH_COOKIE = 'telerace_refresh';

/** The refresh cookie's `name=value` from a response's Set-Cookie headers. */
function refreshCookieOf(res: Response): string {
  const cookie = res.headers
    .getSetCookie()
    .map((header) => header.split(';')[0] ?? '')
    .find((pair) => pair.startsWith(`${REFRESH_COOKIE}=`));
  if (!cookie) throw new Error(`${res.url}: no refresh cookie in the answer`);
  return cookie;
}

async function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/api${path}`, {
    method: 'POST',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path}: HTTP ${res.status} ${await res.text()}`);
  return res;
}

export class MemberSession {
  #token: string;
  #cookie: string;
  #issuedAt = Date.now();
  #refreshing: Promise<string> | null = null;

  private constructor(
    readonly base: string,
    token: string,
    cookie: string,
    /** The address the member calls from (X-Forwarded-For), so per-address limits see many people. */
    readonly ip: string | undefined,
  ) {
    this.#token = token;
    this.#cookie = cookie;
  }

  static async logIn(
    base: string,
    credentials: { email: string; password: string },
    ip?: string,
  ): Promise<MemberSession> {
    const res = await post(
      base,
      '/login',
      { ...credentials, recaptchaToken: '' },
      ip ? { 'x-forwarded-for': ip } : {},
    );
    const { accessToken } = (await res.json()) as { accessToken: string };
    return new MemberSession(base, accessToken, refreshCookieOf(res), ip);
  }

  static admin(base: string): Promise<MemberSession> {
    return MemberSession.logIn(base, BENCH_ADMIN);
  }

  /** Signs a new member up (`name` must be unique in the run) and logs them in. */
  static async signUp(base: string, name: string, ip?: string): Promise<MemberSession> {
    const email = `${name}@soak.telerace.test`;
    await post(
      base,
      '/signup',
      { email, username: name, password: PASSWORD, recaptchaToken: '' },
      ip ? { 'x-forwarded-for': ip } : {},
    );
    return MemberSession.logIn(base, { email, password: PASSWORD }, ip);
  }

  /** The current token, without refreshing: for what must not wait (a socket opened now). */
  get token(): string {
    return this.#token;
  }

  /** When the current token was issued (epoch ms). */
  get issuedAt(): number {
    return this.#issuedAt;
  }

  /** A token with 5 minutes left at least: refreshed first when it is older than 10. */
  async fresh(): Promise<string> {
    if (Date.now() - this.#issuedAt < REFRESH_AFTER_MS) return this.#token;
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  async #refresh(): Promise<string> {
    const res = await post(this.base, '/refresh-token', undefined, { cookie: this.#cookie });
    const { accessToken } = (await res.json()) as { accessToken: string };
    this.#cookie = refreshCookieOf(res);
    this.#token = accessToken;
    this.#issuedAt = Date.now();
    return accessToken;
  }
}
