import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { iceServersFor, TURN_CREDENTIAL_TTL_SECONDS, turnCredential } from './turn-credentials.js';

const NOW = new Date('2026-11-25T23:30:00.750Z');
const NOW_SECONDS = 1_795_649_400; // NOW, whole seconds

describe('turnCredential (coturn REST secret)', () => {
  it('matches an independently computed HMAC-SHA1', () => {
    expect(Math.floor(NOW.getTime() / 1000)).toBe(NOW_SECONDS);
    const username = `${NOW_SECONDS + 3600}:42`;
    const expected = createHmac('sha1', 'north-secret').update(username).digest('base64');
    expect(turnCredential('north-secret', 42, NOW)).toEqual({ username, credential: expected });
  });

  it('expires after the lifetime, one hour by default', () => {
    expect(TURN_CREDENTIAL_TTL_SECONDS).toBe(3600);
    expect(turnCredential('s', 7, NOW, 60).username).toBe(`${NOW_SECONDS + 60}:7`);
  });
});

describe('iceServersFor', () => {
  const stun = ['stun:stun.example:3478'];
  const turn = ['turn:turn.example:3478?transport=udp', 'turns:turn.example:5349'];

  it('gives STUN without credentials and TURN with derived ones', () => {
    const servers = iceServersFor({ stunUrls: stun, turnUrls: turn, turnSecret: 'north-secret' }, 42, NOW);
    const username = `${NOW_SECONDS + 3600}:42`;
    expect(servers).toEqual([
      { urls: stun },
      {
        urls: turn,
        username,
        credential: createHmac('sha1', 'north-secret').update(username).digest('base64'),
      },
    ]);
  });

  it('gives no TURN entry without a secret or without URLs, and nothing when nothing is configured', () => {
    expect(iceServersFor({ stunUrls: stun, turnUrls: turn, turnSecret: null }, 1, NOW)).toEqual([
      { urls: stun },
    ]);
    expect(iceServersFor({ stunUrls: stun, turnUrls: [], turnSecret: 's' }, 1, NOW)).toEqual([
      { urls: stun },
    ]);
    expect(iceServersFor({ stunUrls: [], turnUrls: [], turnSecret: null }, 1, NOW)).toEqual([]);
  });
});
