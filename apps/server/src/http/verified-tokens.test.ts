/** The verified-token memo of the member check never lets an expired or altered token through. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { accessTokenKeys, signAccessToken } from '../modules/auth/access-token.js';
import { VerifiedTokens } from './authenticate.js';

const keys = accessTokenKeys('a test secret that is long enough for HS256', 60);

afterEach(() => {
  vi.useRealTimers();
});

describe('VerifiedTokens', () => {
  it('answers a verified token again until it expires, then refuses it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const tokens = new VerifiedTokens();
    const token = await signAccessToken(keys, 42, 'session-1');
    expect(await tokens.verify(keys, token)).toMatchObject({ userId: 42, sessionId: 'session-1' });
    expect(await tokens.verify(keys, token)).toMatchObject({ userId: 42 });
    vi.setSystemTime(Date.now() + 61_000);
    expect(await tokens.verify(keys, token)).toBeNull();
  });

  it('refuses an altered token even when the genuine one is known', async () => {
    const tokens = new VerifiedTokens();
    const token = await signAccessToken(keys, 7);
    expect(await tokens.verify(keys, token)).not.toBeNull();
    const [header, payload] = token.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(43)}`;
    expect(await tokens.verify(keys, forged)).toBeNull();
    const otherKeys = accessTokenKeys('another secret, also long enough for HS256', 60);
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
