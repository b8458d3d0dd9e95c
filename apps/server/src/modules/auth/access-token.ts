/**
 * Access tokens: short-lived JWTs (HS256 pinned, audience and issuer checked) carrying only the
 * user id. Everything else about the user is read from the database on each request, so a ban or
 * a deletion takes effect at once.
 */
import { jwtVerify, SignJWT } from 'jose';

const ALGORITHM = 'HS256';
export const TOKEN_AUDIENCE = 'telerace';
export const TOKEN_ISSUER = 'telerace-server';

export interface AccessTokenKeys {
  secret: Uint8Array;
  ttlSeconds: number;
}

export function accessTokenKeys(jwtSecret: string, ttlSeconds: number): AccessTokenKeys {
  return { secret: new TextEncoder().encode(jwtSecret), ttlSeconds };
}

export function signAccessToken(keys: AccessTokenKeys, userId: number): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(String(userId))
    .setIssuedAt()
    .setExpirationTime(`${keys.ttlSeconds}s`)
    .setAudience(TOKEN_AUDIENCE)
    .setIssuer(TOKEN_ISSUER)
    .sign(keys.secret);
}

/** The user id of a valid token, or null for anything else (expired, forged, wrong algorithm…). */
export async function verifyAccessToken(keys: AccessTokenKeys, token: string): Promise<number | null> {
  try {
    const { payload } = await jwtVerify(token, keys.secret, {
      algorithms: [ALGORITHM],
      audience: TOKEN_AUDIENCE,
      issuer: TOKEN_ISSUER,
      requiredClaims: ['sub', 'iat', 'exp'],
    });
    const id = Number(payload.sub);
    return Number.isSafeInteger(id) && id > 0 ? id : null;
  } catch {
    return null;
  }
}
