/**
 * Test support: the chat bots' announcements switched off, for the tests of what the bots answer
 * viewers, which count the bots' lines (the announcements have their own test,
 * integrations/chat-announcements.test.ts).
 */
import type { FastifyInstance } from 'fastify';

export async function switchAnnouncementsOff(app: FastifyInstance): Promise<void> {
  await app.settings.update(
    { id: null, username: 'test' },
    {
      chat_announce_raffle_opened: false,
      chat_announce_raffle_winners: false,
      chat_announce_race_podium: false,
    },
  );
}
