/**
 * ICE servers for the browser: STUN as configured, TURN with coturn's REST-secret credentials
 * (`use-auth-secret`): username `<expiry unix seconds>:<user id>`, password
 * base64(HMAC-SHA1(secret, username)). coturn checks the HMAC and refuses expired usernames, so a
 * leaked credential is worthless after TURN_CREDENTIAL_TTL_SECONDS.
 */
import { createHmac } from 'node:crypto';
import type { IceServer } from '@telerace/protocol';
import type { Config } from '../../config.js';

/** Lifetime of a TURN credential; a session outliving it keeps its allocation, new ones need a fresh fetch. */
export const TURN_CREDENTIAL_TTL_SECONDS = 3_600;

export function turnCredential(
  secret: string,
  userId: number | string,
  now: Date,
  ttlSeconds = TURN_CREDENTIAL_TTL_SECONDS,
): { username: string; credential: string } {
  const expiry = Math.floor(now.getTime() / 1000) + ttlSeconds;
  const username = `${expiry}:${userId}`;
  return { username, credential: createHmac('sha1', secret).update(username).digest('base64') };
}

export function iceServersFor(
  config: Pick<Config, 'stunUrls' | 'turnUrls' | 'turnSecret'>,
  userId: number | string,
  now: Date = new Date(),
): IceServer[] {
  const servers: IceServer[] = [];
  if (config.stunUrls.length > 0) servers.push({ urls: [...config.stunUrls] });
  if (config.turnUrls.length > 0 && config.turnSecret !== null) {
    servers.push({ urls: [...config.turnUrls], ...turnCredential(config.turnSecret, userId, now) });
  }
  return servers;
}
