import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.js';

/** The built server runs on its own port with a throw-away data folder for every run. */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 8181);
const baseURL = `http://127.0.0.1:${E2E_PORT}`;

/**
 * raffle.spec.ts has a server of its own (its own port, data folder, race and one simulated car):
 * a draw opens the race lobby and a claim takes "the first free online car", both global to a
 * server, so sharing the main one would race with the driving and race tests' cars and lobby.
 */
export const E2E_RAFFLE_PORT = Number(process.env.E2E_RAFFLE_PORT ?? 8183);
export const E2E_RAFFLE_URL = `http://127.0.0.1:${E2E_RAFFLE_PORT}`;
/**
 * race.spec.ts's server (two simulated cars): every control page joins the race lobby by itself
 * (issue 25), so on a shared server the driving tests' drivers would be in this race's lobby.
 */
export const E2E_RACE_URL = `http://127.0.0.1:${Number(process.env.E2E_RACE_PORT ?? 8185)}`;
/** The local Twitch and Discord stand-in (scripts/oauth-stand-in.mjs) the raffle server signs winners in with. */
export const E2E_OAUTH_PORT = Number(process.env.E2E_OAUTH_PORT ?? 8282);
export const E2E_OAUTH_URL = `http://127.0.0.1:${E2E_OAUTH_PORT}`;
const E2E_OAUTH_CLIENT = { id: 'e2e-twitch-client', secret: 'e2e-twitch-secret' } as const;

/**
 * The chat platforms' stand-ins (scripts/chat-stand-ins.ts) the raffle server's integrations
 * connect to (integrations.spec.ts): Twitch chat, YouTube's live chat, Discord; fixed credentials.
 */
export const E2E_CHAT = {
  twitchIrcPort: Number(process.env.E2E_TWITCH_IRC_PORT ?? 8284),
  youtubePort: Number(process.env.E2E_YOUTUBE_PORT ?? 8285),
  discordPort: Number(process.env.E2E_DISCORD_PORT ?? 8286),
  controlPort: Number(process.env.E2E_CHAT_CONTROL_PORT ?? 8287),
  twitchChannel: 'telerace',
  twitchBotToken: 'oauth:e2e-twitch-bot-token',
  eventSubSecret: 'e2e-eventsub-secret',
  discordBotToken: 'e2e-discord-bot-token',
  discordGuildId: '100000000000000001',
  discordChannelId: '100000000000000002',
} as const;
/** integrations.spec.ts's server and its own Twitch sign-in stand-in (one raffle and one signed-in identity at a time per server). */
export const E2E_CHAT_SERVER_URL = `http://127.0.0.1:${Number(process.env.E2E_CHAT_SERVER_PORT ?? 8184)}`;
export const E2E_CHAT_OAUTH_URL = `http://127.0.0.1:${Number(process.env.E2E_CHAT_OAUTH_PORT ?? 8283)}`;
export const E2E_CHAT_CONTROL_URL = `http://127.0.0.1:${E2E_CHAT.controlPort}`;
export const E2E_YOUTUBE_URL = `http://127.0.0.1:${E2E_CHAT.youtubePort}`;
export const E2E_DISCORD_URL = `http://127.0.0.1:${E2E_CHAT.discordPort}`;

/** The admin the server creates at start-up (ADMIN_EMAIL / ADMIN_PASSWORD). */
export const E2E_ADMIN = { email: 'admin@e2e.telerace.test', password: 'e2e-admin-Passw0rd!' } as const;
/**
 * Short-lived access tokens, so the browser tests also prove the silent refresh: the shortest
 * lifetime the server accepts (ACCESS_TOKEN_TTL_SECONDS, 10–900), so a test sees a page outlive
 * its token in seconds. A page renews a socket's token a quarter of a lifetime before it ends.
 */
export const E2E_ACCESS_TOKEN_TTL_SECONDS = 10;

/** What every e2e server shares: the seeded admin, short-lived access tokens, lifted limits. */
const serverEnv = (port: string) => ({
  PORT: port,
  LOG_LEVEL: 'warn',
  ADMIN_EMAIL: E2E_ADMIN.email,
  ADMIN_PASSWORD: E2E_ADMIN.password,
  ACCESS_TOKEN_TTL_SECONDS: String(E2E_ACCESS_TOKEN_TTL_SECONDS),
  // Every browser of the suite comes from 127.0.0.1: the per-IP limits are for real crowds.
  API_RATE_LIMIT_PER_MINUTE: '100000',
  SIGNUP_RATE_LIMIT_PER_HOUR: '1000',
  // The simulated cars' cameras at 15 frames a second of 320×240 (the agents inherit the server's
  // environment): every driven car's picture is drawn, encoded, sent and decoded in a browser on
  // the same two cores; the tests look at frames arriving and the picture moving, not at 30 fps
  // nor at 480×360.
  CAMERA_FRAMERATE: '15',
  CAMERA_SIZE: '320x240',
});

/** A raffle server's environment: one simulated car, Twitch sign-in against an OAuth stand-in. */
const raffleServerEnv = (port: string, oauthUrl: string) => ({
  ...serverEnv(port),
  SIM_CARS: '1',
  // The claim page sends winners from platforms without sign-in here (issue 41).
  SUPPORT_EMAIL: 'prizes@e2e.telerace.test',
  TWITCH_CLIENT_ID: E2E_OAUTH_CLIENT.id,
  TWITCH_CLIENT_SECRET: E2E_OAUTH_CLIENT.secret,
  TWITCH_AUTH_URL: `${oauthUrl}/twitch/authorize`,
  TWITCH_TOKEN_URL: `${oauthUrl}/twitch/token`,
  TWITCH_API_URL: `${oauthUrl}/twitch/api`,
});

/** A process scripts/start-all.mjs starts: the tests begin once `url` answers. */
interface E2EProcess {
  name: string;
  command: string;
  url: string;
  env: Record<string, string>;
}
/** Where scripts/start-all.mjs says every process is up. */
const E2E_READY_PORT = Number(process.env.E2E_READY_PORT ?? 8180);

/** A built server on a fresh data folder (scripts/start-server.mjs), ready once /api/ready says so. */
const server = (name: string, base: string, env: Record<string, string>): E2EProcess => ({
  name,
  command: 'node scripts/start-server.mjs',
  url: `${base}/api/ready`,
  env,
});

/** The Twitch and Discord OAuth stand-in (scripts/oauth-stand-in.mjs) on `base`'s port. */
const oauthStandInAt = (name: string, base: string): E2EProcess => ({
  name,
  command: 'node scripts/oauth-stand-in.mjs',
  url: `${base}/health`,
  env: {
    E2E_OAUTH_PORT: new URL(base).port,
    E2E_OAUTH_CLIENT_ID: E2E_OAUTH_CLIENT.id,
    E2E_OAUTH_CLIENT_SECRET: E2E_OAUTH_CLIENT.secret,
  },
});

const mainServer = server('the main server', baseURL, {
  ...serverEnv(String(E2E_PORT)),
  // Simulated cars driven by real car-agent processes over the real car socket: one for each
  // driving test (a car stays taken for its session): Sim 1–3 for driving.spec.ts, Sim 4, Sim 5
  // and Sim 7 for phone.spec.ts, Sim 6 for drive-channel.spec.ts. An idle agent only holds its
  // car socket; it renders and streams video only while driven.
  SIM_CARS: '7',
});

// race.spec.ts's server: the main one's settings, a race of its own and its two drivers' cars.
const raceServer = server('the race server', E2E_RACE_URL, {
  ...serverEnv(new URL(E2E_RACE_URL).port),
  SIM_CARS: '2',
});

const oauthStandIn = oauthStandInAt('the OAuth stand-in', E2E_OAUTH_URL);

const chatStandIns: E2EProcess = {
  name: 'the chat stand-ins',
  command: 'node --import tsx scripts/chat-stand-ins.ts',
  url: `${E2E_CHAT_CONTROL_URL}/health`,
  env: {
    E2E_TWITCH_IRC_PORT: String(E2E_CHAT.twitchIrcPort),
    E2E_YOUTUBE_PORT: String(E2E_CHAT.youtubePort),
    E2E_DISCORD_PORT: String(E2E_CHAT.discordPort),
    E2E_CHAT_CONTROL_PORT: String(E2E_CHAT.controlPort),
    E2E_TWITCH_BOT_TOKEN: E2E_CHAT.twitchBotToken,
    E2E_DISCORD_BOT_TOKEN: E2E_CHAT.discordBotToken,
    E2E_DISCORD_GUILD_ID: E2E_CHAT.discordGuildId,
    E2E_DISCORD_CHANNEL_ID: E2E_CHAT.discordChannelId,
  },
};

// The raffle test's server: like the main one, with Twitch and Discord sign-in pointed at the
// stand-in and a single simulated car ("Sim 1"), the one a winner's claim is given.
const raffleServer = server('the raffle server', E2E_RAFFLE_URL, {
  ...raffleServerEnv(String(E2E_RAFFLE_PORT), E2E_OAUTH_URL),
  // Discord sign-in too: a viewer links a second platform (raffle.spec.ts, one account, one entry).
  DISCORD_CLIENT_ID: E2E_OAUTH_CLIENT.id,
  DISCORD_CLIENT_SECRET: E2E_OAUTH_CLIENT.secret,
  DISCORD_AUTH_URL: `${E2E_OAUTH_URL}/discord/authorize`,
  DISCORD_TOKEN_URL: `${E2E_OAUTH_URL}/discord/token`,
  DISCORD_API_URL: `${E2E_OAUTH_URL}/discord/api`,
});

const chatOauthStandIn = oauthStandInAt('the integrations OAuth stand-in', E2E_CHAT_OAUTH_URL);

// integrations.spec.ts's server: every chat integration on, against the stand-ins, Twitch
// sign-in against its own OAuth stand-in, one simulated car for the winner's claim.
const chatServer = server('the integrations server', E2E_CHAT_SERVER_URL, {
  ...raffleServerEnv(new URL(E2E_CHAT_SERVER_URL).port, E2E_CHAT_OAUTH_URL),
  // The chat integrations (integrations.spec.ts), each against its stand-in.
  TWITCH_CHANNEL: E2E_CHAT.twitchChannel,
  TWITCH_BOT_USERNAME: 'telerace_bot',
  TWITCH_BOT_TOKEN: E2E_CHAT.twitchBotToken,
  TWITCH_IRC_URL: `ws://127.0.0.1:${E2E_CHAT.twitchIrcPort}`,
  TWITCH_EVENTSUB_SECRET: E2E_CHAT.eventSubSecret,
  YOUTUBE_API_URL: `${E2E_YOUTUBE_URL}/youtube/v3`,
  YOUTUBE_OAUTH_TOKEN: 'stand-in-token',
  YOUTUBE_LIVE_CHAT_ID: 'stand-in-chat-1',
  DISCORD_API_URL: `${E2E_DISCORD_URL}/api/v10`,
  DISCORD_BOT_TOKEN: E2E_CHAT.discordBotToken,
  DISCORD_GUILD_ID: E2E_CHAT.discordGuildId,
  DISCORD_CHANNEL_ID: E2E_CHAT.discordChannelId,
});

/** The test files that take minutes of real time each (see `projects`). */
const LONG_TESTS = /\/(race|raffle|integrations)\.spec\.ts$/;

export default defineConfig({
  testDir: './tests',
  outputDir: './test-results',
  fullyParallel: true,
  workers: 2,
  forbidOnly: true,
  // No retries: a test that fails once is a bug to find, not noise to hide. Traces are kept on
  // failure for that (the account test's one-time hangs on an earlier, much slower machine did not
  // recur here in 90 runs under four CPU hogs).
  retries: 0,
  // A 2-core CI machine runs the server, two simulated cameras, Janus and two browsers at once:
  // generous limits, since no test here measures speed (npm run bench does). On a loaded run a
  // log-in took 11 s from the click to the home page (3 s pauses while both browsers and three
  // servers shared the cores and the disk), so a screen gets 20 s to show what a test waits for.
  timeout: 90_000,
  expect: { timeout: 20_000 },
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  use: {
    baseURL,
    // A failed test keeps its trace: every action, the console, the network and the sources, and
    // its own screenshot beside it. Neither the screencast (a JPEG of every frame the page paints,
    // live video included) nor the DOM before and after each action, both recorded for every test
    // to be thrown away by every test that passes: the DOM snapshots alone were 7 % of the
    // suite's CPU (355 → 331 and 348 → 325 CPU-s, alternating runs, 5 Dec 2026).
    // E2E_TRACE_SNAPSHOTS=1 records them, to look at a failure's pages action by action.
    trace: {
      mode: 'retain-on-failure',
      screenshots: false,
      snapshots: process.env.E2E_TRACE_SNAPSHOTS === '1',
      sources: true,
    },
    screenshot: 'only-on-failure',
    // No endless CSS animations (a pulsing dot, a spinner) repainting every page 60 times a
    // second: on two cores shared by servers, cameras and browsers, Chromium was the largest user
    // of CPU. The site honours the setting (styles.css); no test looks at an animation.
    reducedMotion: 'reduce',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  // Workers take tests in the projects' order: the long real-time tests (a whole race, the raffle
  // draws, the chat raffle: minutes of waiting on clocks, little CPU) start first, beside the
  // rest, instead of last, after it.
  projects: [
    { name: 'races', use: { ...devices['Desktop Chrome'] }, testMatch: LONG_TESTS },
    // @phone tests (a car each) run on the phone only.
    {
      name: 'mobile',
      use: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
      grep: /@mobile|@phone/,
    },
    // @mobile tests run on both.
    { name: 'desktop', use: { ...devices['Desktop Chrome'] }, testIgnore: LONG_TESTS, grepInvert: /@phone/ },
  ],
  // Every process the tests talk to, started by one webServer (scripts/start-all.mjs): the
  // stand-ins together, then the four servers together (Playwright starts webServer entries one
  // after another: 19 s for these six).
  webServer: {
    command: 'node scripts/start-all.mjs',
    url: `http://127.0.0.1:${E2E_READY_PORT}/ready`,
    reuseExistingServer: false,
    timeout: 120_000,
    // Stopped as Ctrl+C stops them, not killed: each server closes its database and
    // scripts/start-server.mjs then removes the run's data folder.
    gracefulShutdown: { signal: 'SIGTERM', timeout: 20_000 },
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      E2E_READY_PORT: String(E2E_READY_PORT),
      E2E_PROCESSES: JSON.stringify([
        [oauthStandIn, chatStandIns, chatOauthStandIn],
        [mainServer, raceServer, raffleServer, chatServer],
      ]),
    },
  },
});
