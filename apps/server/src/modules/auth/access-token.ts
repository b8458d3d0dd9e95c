/**
 * Access tokens: short-lived JWTs (HS256 pinned, audience and issuer checked) carrying the user id
 * and the session (refresh-token family) they were issued for. Everything else about the user is
 * read from the users row on each request (the user cache, dropped at once by every change), so a
 * ban or a deletion takes effect at once; `sid` lets
 * a log-out close the sockets that session opened, and `iat_ms` lets a password change refuse
 * every token issued before it to the millisecond (`iat` has whole seconds, and a token issued in
 * the second of the change, before it, must not survive it).
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../../clock.js';
import type { AccessTokenClaims } from '../../http/authenticate.js';

const ALGORITHM = 'HS256';
export const TOKEN_AUDIENCE = 'telerace';
export const TOKEN_ISSUER = 'telerace-server';
/** Clock skew tolerated on `iat` (a token "from the future" by more than this is refused). */
const CLOCK_TOLERANCE_SECONDS = 5;

export interface AccessTokenKeys {
  /**
   * A KeyObject rather than bytes: jose turns it into a WebCrypto key once and keeps it, where raw
   * bytes are imported again on every signature and verification.
   */
  secret: KeyObject;
  ttlSeconds: number;
  /**
   * The server's clock (the app's one Clock): a token's `iat` and `exp` are written from it and
   * checked against it, as `tokens_valid_after` and the sessions' times are. A test moves it
   * instead of waiting for a token to expire.
   */
  clock: Clock;
}

export function accessTokenKeys(jwtSecret: string, ttlSeconds: number, clock: Clock): AccessTokenKeys {
  return { secret: createSecretKey(Buffer.from(jwtSecret, 'utf8')), ttlSeconds, clock };
}

/** A token issued at the clock's now, for `keys.ttlSeconds` from the start of that second. */
export function signAccessToken(keys: AccessTokenKeys, userId: number, sessionId?: string): Promise<string> {
  const issuedAtMs = keys.clock.now().getTime();
  const issuedAt = Math.floor(issuedAtMs / 1000);
  const claims = { iat_ms: issuedAtMs, ...(sessionId === undefined ? {} : { sid: sessionId }) };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(String(userId))
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + keys.ttlSeconds)
    .setAudience(TOKEN_AUDIENCE)
    .setIssuer(TOKEN_ISSUER)
    .sign(keys.secret);
}

/**
 * The claims of a valid token, or null for anything else: expired by the keys' clock, forged,
 * wrong algorithm, a `sub` that is not plain digits, an `iat` older than the lifetime allows or
 * in the future.
 */
export async function verifyAccessTokenClaims(
  keys: AccessTokenKeys,
  token: string,
): Promise<AccessTokenClaims | null> {
  const now = keys.clock.now().getTime();
  try {
    const { payload } = await jwtVerify(token, keys.secret, {
      algorithms: [ALGORITHM],
      audience: TOKEN_AUDIENCE,
      issuer: TOKEN_ISSUER,
      requiredClaims: ['sub', 'iat', 'exp'],
      currentDate: new Date(now),
    });
    if (typeof payload.sub !== 'string' || !/^[1-9]\d{0,15}$/.test(payload.sub)) return null;
    const id = Number(payload.sub);
    if (!Number.isSafeInteger(id)) return null;
    const iat = payload.iat as number;
    const exp = payload.exp as number;
    const nowSeconds = now / 1000;
    if (iat > nowSeconds + CLOCK_TOLERANCE_SECONDS) return null;
    if (iat < nowSeconds - keys.ttlSeconds - CLOCK_TOLERANCE_SECONDS) return null;
    const { sid, iat_ms: iatMs } = payload;
    return {
      userId: id,
      sessionId: typeof sid === 'string' ? sid : null,
      issuedAt: iat,
      issuedAtMs: typeof iatMs === 'number' && Number.isSafeInteger(iatMs) ? iatMs : iat * 1000,
      expiresAt: exp,
    };
  } catch {
    return null;
  }
}
