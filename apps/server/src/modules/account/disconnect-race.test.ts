/**
 * "Keep one sign-in method" holds under parallel calls (issue 23 point 9): a password-less member
 * with two linked identities who unlinks both at once keeps one of them.
 */
import { ERROR_KEYS } from '@telerace/protocol';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../../db/schema.js';
import { authHeader, buildUser } from '../../test/factories.js';
import { useListeningTestApp } from '../../test/sockets.js';

const unique = () => Math.random().toString(36).slice(2, 10);

describe('POST /me/disconnect, twice in parallel', () => {
  const testApp = useListeningTestApp();

  it('of two parallel unlinks of a password-less account’s two identities, exactly one succeeds', async () => {
    const { app, host } = testApp;
    const db = app.database.db;
    for (let round = 0; round < 5; round++) {
      const member = await buildUser(db, {
        password: null,
        twitchId: `tw-${unique()}`,
        discordId: `d-${unique()}`,
      });
      const headers = { ...(await authHeader(app, member)), 'content-type': 'application/json' };
      const disconnect = (platform: 'twitch' | 'discord') =>
        fetch(`http://${host}/api/me/disconnect`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ platform }),
        });
      // The member check's row is cached: both calls start from the same "two identities linked".
      expect((await fetch(`http://${host}/api/me`, { headers })).status).toBe(200);
      const answers = await Promise.all([disconnect('twitch'), disconnect('discord')]);
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses, `round ${round}`).toEqual([200, 409]);
      const refused = answers.find((answer) => answer.status === 409);
      expect(await refused?.json()).toMatchObject({ errorKey: ERROR_KEYS.lastSignInMethod });
      const [row] = await db.select().from(users).where(eq(users.id, member.id));
      expect(
        [row?.twitchId, row?.discordId].filter((id) => id !== null),
        `round ${round}`,
      ).toHaveLength(1);
    }
  });
});
