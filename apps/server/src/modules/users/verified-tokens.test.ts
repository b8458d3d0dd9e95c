/** The verified-token memo of the member check never lets an expired or altered token through. */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/clock.js';
import { accessTokenKeys, signAccessToken } from '../auth/access-token.js';

import { VerifiedTokens } from './authenticator.js';

/** Half a second into a second: a 60 s token issued now expires 59.5 s later. */
const clock = new ManualClock(new Date('2031-05-04T10:00:00.500Z'));
const keys = accessTokenKeys('a test secret that is long enough for HS256', 60, clock);

describe('VerifiedTokens', () => {
  it('answers a verified token again until the clock reaches its expiry, then refuses it', async () => {
    const tokens = new VerifiedTokens();
    const token = await signAccessToken(keys, 42, 'session-1');
    expect(await tokens.verify(keys, token)).toMatchObject({ userId: 42, sessionId: 'session-1' });
    clock.advance(59_499);
    expect(await tokens.verify(keys, token)).toMatchObject({ userId: 42 });
    clock.advance(1);
    expect(await tokens.verify(keys, token)).toBeNull();
  });

  it('refuses an altered token even when the genuine one is known', async () => {
    const tokens = new VerifiedTokens();
    const token = await signAccessToken(keys, 7);
    expect(await tokens.verify(keys, token)).not.toBeNull();
    const [header, payload] = token.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(43)}`;
    expect(await tokens.verify(keys, forged)).toBeNull();
    const otherKeys = accessTokenKeys('another secret, also long enough for HS256', 60, clock);
    expect(await tokens.verify(keys, await signAccessToken(otherKeys, 7))).toBeNull();
  });

  it('keeps at most maxTokens', async () => {
    const tokens = new VerifiedTokens(2);
    const all = await Promise.all([1, 2, 3].map((id) => signAccessToken(keys, id)));
    for (const token of all) await tokens.verify(keys, token);
    expect(tokens.size).toBe(2);
    // Still correct for the evicted one: verified again.
    expect(await tokens.verify(keys, all[0] as string)).toMatchObject({ userId: 1 });
  });
});
