/**
 * One-time sign-in codes: how a sign-in that finishes outside the login form (social sign-in)
 * hands the browser a session without putting a token in the address bar (login CSRF).
 *
 * 1. The browser starts the flow on the server (`startSignInFlow`): a random nonce goes into an
 *    httpOnly cookie on that browser only.
 * 2. The provider sends the browser back to the server's callback, which reads the nonce
 *    (`flowNonce`) and, once it knows the member, issues a code bound to it (`issueLoginCode`),
 *    then redirects to `/auth/callback?token=<code>…`.
 * 3. The page posts the code to `POST /api/auth/exchange` (`exchange`): only the browser holding
 *    the nonce can spend it, once, within LOGIN_CODE_TTL_SECONDS.
 * A link with an attacker's code opened by a victim finds no (or another) nonce: refused, so the
 * victim is never signed in as the attacker. Only SHA-256 hashes of the code and nonce are stored.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { hashToken, newOpaqueToken } from '../../tokens.js';
import { consumeLoginCode, deleteLoginCodesExpiredBefore, insertLoginCode } from './login-codes.repo.js';

/** The cookie holding the flow's nonce. */
export const SIGN_IN_FLOW_COOKIE = 'telerace_signin';
/** Time the member has at the provider (log in, consent, two-factor) before the flow is void. */
export const SIGN_IN_FLOW_SECONDS = 10 * 60;
/** A code only has to survive one redirect and one request. */
export const LOGIN_CODE_TTL_SECONDS = 60;

/** How long expired codes stay stored (for whoever looks into a failed sign-in). */
const STALE_CODES_KEPT_MS = 60 * 60_000;

/** base64url of 32 random bytes: what newOpaqueToken makes; anything else is not ours. */
const OPAQUE = /^[A-Za-z0-9_-]{43}$/;

export interface LoginCodesDeps {
  db: Db;
  clock: Clock;
  /** The nonce cookie is sent over HTTPS only (PUBLIC_URL is https). */
  secure: boolean;
}

export class LoginCodes {
  readonly #cookie;
  private readonly db: Db;
  private readonly clock: Clock;

  constructor(deps: LoginCodesDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.#cookie = {
      httpOnly: true,
      secure: deps.secure,
      // Lax, not Strict: the provider sends the browser back with a top-level GET from its own
      // site, and the callback must read the nonce then. Strict cookies are withheld on any
      // navigation that started on another site (the whole redirect chain counts as cross-site);
      // Lax ones are sent on top-level GETs, and never on cross-site POSTs, images or frames.
      sameSite: 'lax',
      path: '/api',
    } as const;
  }

  /** Starts a sign-in flow in this browser: sets the nonce cookie, returns the nonce. */
  startSignInFlow(reply: FastifyReply): string {
    const nonce = newOpaqueToken();
    reply.setCookie(SIGN_IN_FLOW_COOKIE, nonce, { ...this.#cookie, maxAge: SIGN_IN_FLOW_SECONDS });
    return nonce;
  }

  /** The nonce of the flow this browser started, if any. */
  flowNonce(request: FastifyRequest): string | null {
    const nonce = request.cookies[SIGN_IN_FLOW_COOKIE];
    return nonce !== undefined && OPAQUE.test(nonce) ? nonce : null;
  }

  /** Ends the flow in this browser (after a successful exchange). */
  endSignInFlow(reply: FastifyReply): void {
    reply.clearCookie(SIGN_IN_FLOW_COOKIE, this.#cookie);
  }

  /** A code for the member, spendable once by the browser holding `nonce`. */
  async issueLoginCode(userId: number, nonce: string): Promise<string> {
    if (!OPAQUE.test(nonce)) throw new Error('issueLoginCode needs the nonce of a started sign-in flow');
    const code = newOpaqueToken();
    const now = this.clock.now();
    // Codes are worth nothing a minute after they were issued: forget those an hour past expiry.
    await deleteLoginCodesExpiredBefore(this.db, new Date(now.getTime() - STALE_CODES_KEPT_MS));
    await insertLoginCode(this.db, {
      codeHash: hashToken(code),
      bindingHash: hashToken(nonce),
      userId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + LOGIN_CODE_TTL_SECONDS * 1000),
    });
    return code;
  }

  /** The member the code signs in, or null: unknown, used, expired, or not this browser's. */
  async exchange(code: string, nonce: string | null): Promise<number | null> {
    if (nonce === null || !OPAQUE.test(code)) return null;
    return consumeLoginCode(this.db, hashToken(code), hashToken(nonce), this.clock.now());
  }
}
