import { createHmac } from 'node:crypto';
import { IceServersResponse } from '@telerace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../../test/app.js';
import { authHeader, buildUser } from '../../test/factories.js';

const URL = '/api/video/ice-servers';

describe('GET /api/video/ice-servers', () => {
  describe('default configuration', () => {
    let testApp: Awaited<ReturnType<typeof startTestApp>>;
    beforeAll(async () => {
      testApp = await startTestApp();
    });
    afterAll(() => testApp.close());

    it('refuses anonymous callers', async () => {
      const response = await testApp.app.inject({ method: 'GET', url: URL });
      expect(response.statusCode).toBe(401);
    });

    it('gives a member the default STUN server only, never cached', async () => {
      const { app } = testApp;
      const member = await buildUser(app.database.db);
      const response = await app.inject({ method: 'GET', url: URL, headers: await authHeader(app, member) });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.json()).toEqual({ iceServers: [{ urls: ['stun:stun.l.google.com:19302'] }] });
    });
  });

  describe('with TURN', () => {
    const TURN_SECRET = 'a-turn-secret-for-tests';
    let testApp: Awaited<ReturnType<typeof startTestApp>>;
    beforeAll(async () => {
      testApp = await startTestApp({
        STUN_URLS: '',
        TURN_URLS: 'turn:turn.example:3478,turns:turn.example:5349',
        TURN_SECRET,
      });
    });
    afterAll(() => testApp.close());

    it('gives short-lived TURN credentials that verify with the shared secret', async () => {
      const { app } = testApp;
      const member = await buildUser(app.database.db);
      const before = Math.floor(Date.now() / 1000);
      const response = await app.inject({ method: 'GET', url: URL, headers: await authHeader(app, member) });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const { iceServers } = IceServersResponse.parse(response.json());
      expect(iceServers).toHaveLength(1);
      const [turn] = iceServers;
      expect(turn?.urls).toEqual(['turn:turn.example:3478', 'turns:turn.example:5349']);
      const [expiry, userId] = (turn?.username ?? '').split(':');
      expect(userId).toBe(String(member.id));
      expect(Number(expiry) - before).toBeGreaterThanOrEqual(3600);
      expect(Number(expiry) - before).toBeLessThanOrEqual(3601);
      expect(turn?.credential).toBe(
        createHmac('sha1', TURN_SECRET)
          .update(turn?.username ?? '')
          .digest('base64'),
      );
      expect(testApp.logText()).not.toContain(TURN_SECRET);
    });
  });
});
