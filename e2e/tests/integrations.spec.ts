/**
 * A raffle held in chat (issue 14): the server's Twitch, YouTube and Discord integrations are
 * connected to their local stand-ins (scripts/chat-stand-ins.ts: Twitch chat over IRC-WebSocket
 * that tmi.js speaks to, the YouTube Data API's live chat, Discord's gateway and REST that
 * discord.js speaks to). A viewer signs up with Twitch and subscribes (a signed EventSub
 * delivery); the admin opens a raffle; viewers type `!join` on Twitch and YouTube and use `/join`
 * on Discord; the bots answer; the admin's Integrations tab shows the three connected, the entries
 * per platform and the joins; the subscriber's entry weighs base + linked account + loyalty; the
 * draw's published verification agrees; the subscriber claims the prize with Twitch and lands on
 * their car.
 *
 * Its own server (playwright.config.ts `E2E_CHAT_SERVER_URL`, one simulated car) and its own
 * Twitch sign-in stand-in: a raffle, its race lobby and a claimed car are global to a server.
 */
import { execFile } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  E2E_ADMIN,
  E2E_CHAT,
  E2E_CHAT_CONTROL_URL,
  E2E_CHAT_OAUTH_URL,
  E2E_CHAT_SERVER_URL,
  E2E_DISCORD_URL,
  E2E_YOUTUBE_URL,
} from '../playwright.config.js';
import { type APIRequestContext, type Browser, expect, type Page, test } from './fixtures.js';
import { adminToken, fill, logIn, onlineCar, screenshot, translations } from './support.js';

const { en } = translations();
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

test.use({ baseURL: E2E_CHAT_SERVER_URL });
// 36–66 s alone; the same room as the raffle test for a loaded 2-core CI run.
test.describe.configure({ mode: 'serial', timeout: 240_000 });

/** A Twitch viewer who signs up with Twitch and subscribed three months ago. */
const SUBSCRIBER = { id: 'tw-e2e-subscriber', login: 'subviewer', name: 'SubViewer' } as const;
const YOUTUBE_VIEWER = { channelId: 'UC-e2e-viewer', displayName: 'TubeViewer' } as const;
const DISCORD_MEMBER = {
  id: '200000000000000001',
  username: 'discorder',
  globalName: 'DiscordViewer',
} as const;

/** base 100 + 25 for the linked Twitch account + 30 loyalty (3 months). */
const SUBSCRIBER_WEIGHT = 155;

async function freshBrowser(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: E2E_CHAT_SERVER_URL });
  await context.addCookies([{ name: 'telerace_cookie_consent', value: '1', url: E2E_CHAT_SERVER_URL }]);
  return context.newPage();
}

/** Twitch's EventSub delivery, signed as Twitch signs it (HMAC of id + timestamp + body). */
async function deliverEventSub(request: APIRequestContext, type: string, event: Record<string, unknown>) {
  const id = randomUUID();
  const timestamp = new Date().toISOString();
  const body = JSON.stringify({
    subscription: {
      id: randomUUID(),
      type,
      version: '1',
      status: 'enabled',
      condition: {},
      created_at: timestamp,
    },
    event,
  });
  const signature = createHmac('sha256', E2E_CHAT.eventSubSecret)
    .update(id + timestamp + body)
    .digest('hex');
  return request.post('/api/webhooks/twitch', {
    headers: {
      'content-type': 'application/json',
      'twitch-eventsub-message-id': id,
      'twitch-eventsub-message-timestamp': timestamp,
      'twitch-eventsub-message-signature': `sha256=${signature}`,
      'twitch-eventsub-message-type': 'notification',
      'twitch-eventsub-subscription-type': type,
      'twitch-eventsub-subscription-version': '1',
    },
    data: body,
  });
}

interface AdminRaffle {
  raffle: { id: number; status: string } | null;
}

interface RaffleRecord {
  entries: { displayName: string; weight: number }[];
}

test('viewers join a raffle from Twitch, YouTube and Discord chat, and a Twitch subscriber wins more weight and claims', async ({
  browser,
  request,
}, testInfo) => {
  const carId = await onlineCar(request, 'Sim 1');
  // Access tokens live 10 s here (E2E_ACCESS_TOKEN_TTL_SECONDS): a fresh one for each call.
  const admin = async () => ({ headers: { authorization: `Bearer ${await adminToken(request)}` } });

  const viewer = await freshBrowser(browser);
  await test.step('a viewer signs up with Twitch', async () => {
    const signedIn = await request.post(`${E2E_CHAT_OAUTH_URL}/control/identity`, {
      data: { id: SUBSCRIBER.id, name: SUBSCRIBER.name },
    });
    expect(signedIn.status()).toBe(200);
    await viewer.goto('/signup');
    await viewer
      .getByRole('link', { name: fill(en.social.signupWith, { platform: en.social.twitch }) })
      .click();
    await expect(viewer).toHaveURL(/\/complete-registration$/);
    await viewer.getByRole('checkbox').check();
    await viewer.getByRole('button', { name: en.completeRegistration.submit, exact: true }).click();
    await expect(viewer).not.toHaveURL(/\/complete-registration$/);
  });

  await test.step('Twitch tells the server the viewer has been subscribed for three months', async () => {
    const response = await deliverEventSub(request, 'channel.subscription.message', {
      user_id: SUBSCRIBER.id,
      user_login: SUBSCRIBER.login,
      user_name: SUBSCRIBER.name,
      broadcaster_user_id: '12345',
      broadcaster_user_login: E2E_CHAT.twitchChannel,
      broadcaster_user_name: 'Telerace',
      tier: '1000',
      message: { text: 'Love the races!', emotes: [] },
      cumulative_months: 3,
      streak_months: null,
      duration_months: 1,
    });
    expect(response.status()).toBe(204);
  });

  const adminPage = await freshBrowser(browser);
  const card = (name: string) => adminPage.getByRole('region', { name });
  await test.step('the admin sees the three chat integrations connected', async () => {
    await logIn(adminPage, E2E_ADMIN.email, E2E_ADMIN.password);
    await adminPage.goto('/admin?tab=integrations');
    for (const name of ['Twitch', 'YouTube', 'Discord']) {
      await expect(card(name).getByTestId('integration-state')).toHaveAttribute('data-state', 'connected', {
        timeout: 30_000,
      });
    }
    await expect(card('Tips').getByTestId('integration-state')).toHaveAttribute(
      'data-state',
      'not_configured',
    );
    await expect(adminPage.getByTestId('integrations-no-raffle')).toBeVisible();
    await screenshot(adminPage, testInfo, 'integrations-connected');
  });

  await test.step('the admin opens a raffle for three racers', async () => {
    const response = await request.post('/api/admin/race/start-raffle', {
      ...(await admin()),
      data: { racers: 3 },
    });
    expect(response.status()).toBe(200);
  });

  await test.step('viewers join from the three chats and the bots answer them', async () => {
    const twitch = await request.post(`${E2E_CHAT_CONTROL_URL}/twitch/say`, {
      data: { login: SUBSCRIBER.login, id: SUBSCRIBER.id, displayName: SUBSCRIBER.name, text: '!join' },
    });
    expect(twitch.status()).toBe(200);
    const youtube = await request.post(`${E2E_YOUTUBE_URL}/stand-in/say`, {
      data: { ...YOUTUBE_VIEWER, text: '!join' },
    });
    expect(youtube.status()).toBe(200);
    const discord = await request.post(`${E2E_DISCORD_URL}/_stand-in/interaction`, {
      data: { member: DISCORD_MEMBER },
    });
    expect(discord.status()).toBe(200);
    // Discord's answer to /join is ephemeral: only the member sees it.
    const callback = (await discord.json()) as { data: { content: string; flags?: number } };
    expect(callback.data.content).toContain("you're in the raffle");
    expect((callback.data.flags ?? 0) & 64).toBe(64);

    await expect
      .poll(
        async () =>
          ((await (await request.get(`${E2E_CHAT_CONTROL_URL}/twitch/sent`)).json()) as { text: string }[])
            .map((m) => m.text)
            .join('\n'),
        {
          timeout: 15_000,
        },
      )
      .toMatch(/@SubViewer.*you're in the raffle/i);
    await expect
      .poll(
        async () => JSON.stringify(await (await request.get(`${E2E_YOUTUBE_URL}/stand-in/sent`)).json()),
        {
          timeout: 15_000,
        },
      )
      .toContain('@TubeViewer');
  });

  await test.step('the Integrations tab counts one entry per platform and lists the joins', async () => {
    for (const platform of ['twitch', 'youtube', 'discord']) {
      await expect(adminPage.getByTestId(`integrations-entries-${platform}`)).toContainText('1', {
        timeout: 15_000,
      });
    }
    const events = adminPage.getByRole('list', { name: en.admin.integrations.events });
    for (const name of [SUBSCRIBER.name, YOUTUBE_VIEWER.displayName, DISCORD_MEMBER.globalName]) {
      await expect(events.getByRole('listitem').filter({ hasText: name }).first()).toBeVisible();
    }
    await screenshot(adminPage, testInfo, 'integrations-joins');
  });

  let raffleId = 0;
  await test.step("the subscriber's entry weighs base + linked account + loyalty; the others the base", async () => {
    const view = (await (await request.get('/api/admin/raffle', await admin())).json()) as AdminRaffle;
    raffleId = view.raffle?.id ?? 0;
    const record = (await (await request.get(`/api/raffles/${raffleId}/record`)).json()) as RaffleRecord;
    const weights = Object.fromEntries(record.entries.map((e) => [e.displayName, e.weight]));
    expect(weights, JSON.stringify(view)).toEqual({
      [SUBSCRIBER.name]: SUBSCRIBER_WEIGHT,
      [YOUTUBE_VIEWER.displayName]: 100,
      [DISCORD_MEMBER.globalName]: 100,
    });
    await adminPage.goto('/admin?tab=race-control');
    await expect(adminPage.getByTestId('raffle-entry').filter({ hasText: SUBSCRIBER.name })).toContainText(
      `${en.social.twitch}${SUBSCRIBER_WEIGHT}`,
    );
    await screenshot(adminPage, testInfo, 'integrations-raffle-weights');
  });

  await test.step('the draw follows the weights: its published verification agrees', async () => {
    const drawn = await request.post('/api/admin/race/draw-winners', await admin());
    expect(drawn.status(), await drawn.text()).toBe(200);
    const { stdout } = await promisify(execFile)(
      'npm',
      ['run', '--silent', 'verify-raffle', '--', `${E2E_CHAT_SERVER_URL}/api/raffles/${raffleId}`],
      { cwd: ROOT },
    );
    expect(stdout).not.toContain('MISMATCH');
    expect(stdout).toMatch(/^OK\s+/m);
  });

  await test.step('the subscriber claims the prize with Twitch and lands on the car', async () => {
    await viewer.goto('/claim');
    await viewer
      .getByRole('link', { name: fill(en.social.claimWith, { platform: en.social.twitch }), exact: true })
      .click();
    await expect(viewer).toHaveURL(new RegExp(`/control/${carId}/\\d+$`), { timeout: 20_000 });
    await expect(viewer.getByTestId('connection-state')).toHaveText(en.control.connection.connected);
    await screenshot(viewer, testInfo, 'integrations-winner-on-car');
  });

  await viewer.context().close();
  await adminPage.context().close();
});
