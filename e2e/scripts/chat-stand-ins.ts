/**
 * The chat platforms for the browser tests, in one process (`node --import tsx`): Twitch chat
 * (IRC over WebSocket, tmi.js connects to it), the YouTube Data API's live chat and Discord's
 * gateway and REST API — the same stand-ins the server's integration tests use
 * (apps/server/src/test/stand-ins/). Fixed ports and credentials, set in playwright.config.ts.
 *
 * Controls for the tests: this process's own small HTTP server (`GET /health`,
 * `POST /twitch/say {login, id, displayName, text}`, `GET /twitch/sent`); YouTube's
 * (`POST /stand-in/say`, …) and Discord's (`POST /_stand-in/interaction`, …) on their own ports.
 */
import { createServer } from 'node:http';
import { DiscordStandIn } from '../../apps/server/src/test/stand-ins/discord.js';
import { startTwitchChatStandIn } from '../../apps/server/src/test/stand-ins/twitch-chat.js';
import { YoutubeStandIn } from '../../apps/server/src/test/stand-ins/youtube.js';

const port = (name: string) => Number(process.env[name]);

const twitch = await startTwitchChatStandIn({
  port: port('E2E_TWITCH_IRC_PORT'),
  token: process.env.E2E_TWITCH_BOT_TOKEN,
});
const youtube = await YoutubeStandIn.start({ port: port('E2E_YOUTUBE_PORT'), pollingIntervalMillis: 1000 });
const discord = await DiscordStandIn.start({
  port: port('E2E_DISCORD_PORT'),
  token: process.env.E2E_DISCORD_BOT_TOKEN,
  guildId: process.env.E2E_DISCORD_GUILD_ID,
  channelId: process.env.E2E_DISCORD_CHANNEL_ID,
});

const readJson = async (request: import('node:http').IncomingMessage) => {
  let text = '';
  for await (const chunk of request) text += chunk;
  return JSON.parse(text || '{}') as Record<string, string>;
};

const control = createServer(async (request, response) => {
  const reply = (status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  try {
    if (request.url === '/health') return reply(200, { ok: true });
    if (request.method === 'GET' && request.url === '/twitch/sent') return reply(200, twitch.botMessages());
    if (request.method === 'POST' && request.url === '/twitch/say') {
      const body = await readJson(request);
      twitch.say(
        { login: String(body.login), id: body.id, displayName: body.displayName },
        String(body.text),
      );
      return reply(200, { ok: true });
    }
    return reply(404, { error: 'not found' });
  } catch (error) {
    return reply(500, { error: String(error) });
  }
});
// Idle keep-alive connections stay open for the run (as the OAuth stand-in's): Node's 5 s default
// can close one just as Playwright's request context reuses it (ECONNRESET).
control.keepAliveTimeout = 10 * 60_000;
await new Promise<void>((resolve) => control.listen(port('E2E_CHAT_CONTROL_PORT'), '127.0.0.1', resolve));
process.stdout.write(
  `chat stand-ins: twitch ${twitch.url}, youtube ${youtube.url}, discord ${discord.url}\n`,
);

const stop = async () => {
  control.close();
  await Promise.allSettled([twitch.close(), youtube.close(), discord.close()]);
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
