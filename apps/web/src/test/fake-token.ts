/** Access tokens shaped like the server's JWTs (claims readable, signature fake) for the socket tests. */
export function fakeAccessToken(claims: { sub: string | number; iat: number; exp: number }): string {
  const part = (value: unknown) =>
    btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ ...claims, sub: String(claims.sub) })}.signature`;
}

/** A token of member `sub` issued now (by the mocked clock) that lives `seconds`. */
export function tokenFor(sub: string | number, seconds = 900, issuedAt = Date.now()): string {
  const iat = Math.floor(issuedAt / 1000);
  return fakeAccessToken({ sub, iat, exp: iat + seconds });
}
