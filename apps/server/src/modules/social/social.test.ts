/**
 * Social sign-in end to end against local provider stand-ins (src/test/oauth-stand-in.ts): the
 * test plays the browser — it starts at /api/auth/{platform}, follows the server's redirect to
 * the stand-in's consent page, follows the stand-in's redirect back to the callback with its own
 * cookies, and finally exchanges the one-time code as the /auth/callback page does.
 */
import { ERROR_KEYS, type Platform } from '@telerace/protocol';
import { eq } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { oauthStates, users } from '../../db/schema.js';
import { startTestApp } from '../../test/app.js';
import { ManualClock } from '../../test/clock.js';
import { authHeader, buildAdmin, buildSession, buildUser, tokenFor } from '../../test/factories.js';
import { OAuthStandIn, type StandInMember } from '../../test/oauth-stand-in.js';
import {
  connectCar,
  controllerUrl,
  createCar,
  listen,
  openSocket,
  originOf,
  refusedStatus,
  takeCar,
} from '../../test/sockets.js';
import { REFRESH_COOKIE } from '../auth/auth.routes.js';
import { SIGN_IN_FLOW_COOKIE } from '../auth/login-codes.js';

let t: Awaited<ReturnType<typeof startTestApp>>;
/** Where the app listens (the sockets' tests). */
let host: string;
let standIn: OAuthStandIn;
const clock = new ManualClock();

beforeAll(async () => {
  standIn = await OAuthStandIn.start();
  // Discord is left unconfigured: its buttons must be disabled and its start must fail cleanly.
  t = await startTestApp(standIn.env(['twitch', 'youtube']), { clock });
  host = await listen(t.app);
});
afterAll(async () => {
  await t?.close();
  await standIn?.close();
});

let memberCounter = 0;
function newMember(overrides: Partial<StandInMember> = {}): StandInMember {
  memberCounter += 1;
  return {
    id: `${Date.now()}${memberCounter}`,
    name: `Streamer${memberCounter}x${Math.random().toString(36).slice(2, 6)}`,
    avatar: `https://cdn.example.test/avatar-${memberCounter}.png`,
    ...overrides,
  };
}

/** A browser: its own cookie jar, sent with every /api request. */
class Browser {
  readonly cookies = new Map<string, string>();

  constructor(readonly app: FastifyInstance) {}

  async request(
    method: 'GET' | 'POST',
    url: string,
    options: { payload?: unknown; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> {
    const response = await this.app.inject({
      method,
      url,
      cookies: Object.fromEntries(this.cookies),
      ...(options.payload === undefined ? {} : { payload: options.payload as object }),
      ...(options.headers ? { headers: options.headers } : {}),
    });
    for (const cookie of response.cookies) {
      if (cookie.value === '' || cookie.maxAge === 0) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    return response;
  }

  /** GET expecting a redirect; returns its Location. */
  async follow(url: string): Promise<string> {
    const response = await this.request('GET', url);
    expect(response.statusCode, response.body).toBe(302);
    return String(response.headers.location);
  }

  /** Starts at `start`, consents at the stand-in; returns the callback path it sends back to. */
  async toProviderAndBack(start: string): Promise<string> {
    const consentUrl = await this.follow(start);
    expect(consentUrl.startsWith(standIn.url)).toBe(true);
    const consent = await fetch(consentUrl, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const back = new URL(consent.headers.get('location') ?? '');
    return `${back.pathname}${back.search}`;
  }

  /** The whole round trip: where the server finally sends the browser. */
  async roundTrip(start: string): Promise<URL> {
    return new URL(await this.follow(await this.toProviderAndBack(start)), 'http://app.test');
  }

  /** What /auth/callback does with its `token`: the session's access token. */
  async exchange(code: string): Promise<string> {
    const response = await this.request('POST', '/api/auth/exchange', { payload: { code } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().accessToken;
  }
}

const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}` });
/** A member's POST to the API, with a JSON body when given. */
const postAs = (accessToken: string, url: string, payload?: object) =>
  t.app.inject({ method: 'POST', url, headers: bearer(accessToken), ...(payload ? { payload } : {}) });

async function ticketsOf(app: FastifyInstance, accessToken: string): Promise<number> {
  const response = await app.inject({ url: '/api/me/tickets', headers: bearer(accessToken) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().tickets;
}

async function rowOf(app: FastifyInstance, platform: Platform, id: string) {
  const column = { twitch: users.twitchId, youtube: users.youtubeId, discord: users.discordId }[platform];
  return app.database.db.select().from(users).where(eq(column, id));
}

describe('configuration', () => {
  it('shows only the configured providers as available; an unconfigured one fails cleanly', async () => {
    const config = await t.app.inject({ url: '/api/public-config' });
    expect(config.json().socialProviders).toEqual({ twitch: true, youtube: true, discord: false });
    const browser = new Browser(t.app);
    expect(await browser.follow('/api/auth/discord?action=signup')).toBe('/login?error=auth_failed');
  });

  it('refuses a client id without its secret', () => {
    expect(() => loadConfig({ ...t.environment.env, DISCORD_CLIENT_ID: 'only-the-id' })).toThrow(
      'DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET must be set together',
    );
  });

  it('sends the browser to the provider with a 256-bit state, PKCE S256 and the registered redirect URI', async () => {
    const browser = new Browser(t.app);
    const location = new URL(await browser.follow('/api/auth/youtube?action=login'));
    expect(`${location.origin}${location.pathname}`).toBe(`${standIn.url}/youtube/authorize`);
    const query = location.searchParams;
    expect(query.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(query.get('code_challenge_method')).toBe('S256');
    expect(query.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(query.get('redirect_uri')).toBe(`${t.config.publicUrl}/api/auth/youtube/callback`);
    expect(query.get('scope')).toBe('https://www.googleapis.com/auth/youtube.readonly');
    expect(browser.cookies.get(SIGN_IN_FLOW_COOKIE)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Only hashes are stored: neither the state nor the browser's nonce is in the row.
    const rows = await t.app.database.db.select().from(oauthStates);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(query.get('state'));
    expect(stored).not.toContain(browser.cookies.get(SIGN_IN_FLOW_COOKIE));
  });
});

describe('sign-up and login', () => {
  it('signs a new identity up with no password or e-mail, terms first; then logs it in', async () => {
    const member = newMember();
    standIn.signIn('twitch', member);
    const browser = new Browser(t.app);
    const landing = await browser.roundTrip('/api/auth/twitch?action=signup');
    expect(landing.pathname).toBe('/auth/callback');
    expect(landing.searchParams.get('destination')).toBe('/complete-registration');
    const accessToken = await browser.exchange(landing.searchParams.get('token') ?? '');

    const [row] = await rowOf(t.app, 'twitch', member.id);
    expect(row).toMatchObject({
      username: member.name,
      email: null,
      passwordHash: null,
      avatarUrl: member.avatar,
      termsAcceptedAt: null,
    });

    // Before the terms: /me answers, everything else is refused with registrationIncomplete.
    const me = await t.app.inject({ url: '/api/me', headers: bearer(accessToken) });
    expect(me.statusCode).toBe(200);
    expect(me.json().user).toMatchObject({ twitch_id: member.id, registration_complete: false });
    const tickets = await t.app.inject({ url: '/api/me/tickets', headers: bearer(accessToken) });
    expect(tickets.statusCode).toBe(403);
    expect(tickets.json().errorKey).toBe(ERROR_KEYS.registrationIncomplete);
    const car = await postAs(accessToken, '/api/cars/1/connect', { code: 'ABCDEF' });
    expect(car.statusCode).toBe(403);
    expect(car.json().errorKey).toBe(ERROR_KEYS.registrationIncomplete);

    const completed = await postAs(accessToken, '/api/auth/complete-registration');
    expect(completed.statusCode).toBe(200);
    // Base 100 + 25 for the linked Twitch account.
    expect(await ticketsOf(t.app, accessToken)).toBe(125);

    // Later, from another browser: the known identity logs in to the same account, home page next.
    const again = new Browser(t.app);
    const login = await again.roundTrip('/api/auth/twitch?action=login');
    expect(login.searchParams.get('destination')).toBe('/');
    const second = await again.exchange(login.searchParams.get('token') ?? '');
    const meAgain = await t.app.inject({ url: '/api/me', headers: bearer(second) });
    expect(meAgain.json().user.id).toBe(row?.id);
    expect(await rowOf(t.app, 'twitch', member.id)).toHaveLength(1);
  });

  it('gives a name already taken the # suffix', async () => {
    const first = newMember({ name: `Twin${Date.now() % 100000}` });
    standIn.signIn('twitch', first);
    await new Browser(t.app).roundTrip('/api/auth/twitch?action=signup');
    const second = newMember({ name: first.name });
    standIn.signIn('twitch', second);
    await new Browser(t.app).roundTrip('/api/auth/twitch?action=signup');
    const [row] = await rowOf(t.app, 'twitch', second.id);
    expect(row?.username).toMatch(new RegExp(`^${first.name}#\\d{4,6}$`));
  });

  it('keys a YouTube sign-up on the channel id', async () => {
    const channel = newMember({ id: `UC${Date.now()}` });
    standIn.signIn('youtube', channel);
    const browser = new Browser(t.app);
    const landing = await browser.roundTrip('/api/auth/youtube?action=signup');
    expect(landing.searchParams.get('destination')).toBe('/complete-registration');
    expect(await rowOf(t.app, 'youtube', channel.id)).toHaveLength(1);
  });

  it('sends a banned member back to the login page', async () => {
    const member = newMember();
    await buildUser(t.app.database.db, { twitchId: member.id, isBanned: true });
    standIn.signIn('twitch', member);
    const landing = await new Browser(t.app).roundTrip('/api/auth/twitch?action=login');
    expect(`${landing.pathname}${landing.search}`).toBe('/login?error=auth_failed');
  });
});

describe('refusals', () => {
  it('a denied consent comes back with the platform’s permission reason', async () => {
    standIn.deny('twitch');
    const landing = await new Browser(t.app).roundTrip('/api/auth/twitch?action=login');
    expect(`${landing.pathname}${landing.search}`).toBe('/login?auth=failed&reason=twitch_permission');
  });

  it('a Google account without a channel, or without the YouTube scope, is a YouTube permission failure', async () => {
    standIn.signIn('youtube', newMember({ noChannel: true }));
    const noChannel = await new Browser(t.app).roundTrip('/api/auth/youtube?action=signup');
    expect(`${noChannel.pathname}${noChannel.search}`).toBe('/login?auth=failed&reason=youtube_permission');

    standIn.signIn('youtube', newMember({ grantedScope: 'openid' }));
    const noScope = await new Browser(t.app).roundTrip('/api/auth/youtube?action=signup');
    expect(`${noScope.pathname}${noScope.search}`).toBe('/login?auth=failed&reason=youtube_permission');
  });

  it('a state is spent once: replaying the callback fails', async () => {
    standIn.signIn('twitch', newMember());
    const browser = new Browser(t.app);
    const callback = await browser.toProviderAndBack('/api/auth/twitch?action=signup');
    expect(await browser.follow(callback)).toMatch(/^\/auth\/callback\?/);
    expect(await browser.follow(callback)).toBe('/login?error=auth_failed');
  });

  it('a state started in another browser is refused, and stays usable by its own browser', async () => {
    standIn.signIn('twitch', newMember());
    const victim = new Browser(t.app);
    const callback = await victim.toProviderAndBack('/api/auth/twitch?action=signup');
    const attacker = new Browser(t.app);
    await attacker.follow('/api/auth/twitch?action=signup');
    expect(await attacker.follow(callback)).toBe('/login?error=auth_failed');
    expect(await new Browser(t.app).follow(callback)).toBe('/login?error=auth_failed');
    expect(await victim.follow(callback)).toMatch(/^\/auth\/callback\?/);
  });

  it('a stolen code used with another attempt’s state fails the PKCE check at the provider', async () => {
    standIn.signIn('twitch', newMember());
    const victim = new Browser(t.app);
    const victimCallback = new URL(
      await victim.toProviderAndBack('/api/auth/twitch?action=signup'),
      'http://app.test',
    );
    const attacker = new Browser(t.app);
    const attackerCallback = new URL(
      await attacker.toProviderAndBack('/api/auth/twitch?action=signup'),
      'http://app.test',
    );
    // The attacker injects the victim's code into their own flow (their state, their verifier).
    attackerCallback.searchParams.set('code', victimCallback.searchParams.get('code') ?? '');
    const refusalsBefore = standIn.refusals.length;
    expect(await attacker.follow(`${attackerCallback.pathname}${attackerCallback.search}`)).toBe(
      '/login?error=auth_failed',
    );
    expect(standIn.refusals.slice(refusalsBefore)).toEqual(['code_verifier does not match the challenge']);
  });

  it('a state older than 10 minutes is refused', async () => {
    standIn.signIn('twitch', newMember());
    const browser = new Browser(t.app);
    const callback = await browser.toProviderAndBack('/api/auth/twitch?action=signup');
    clock.advance(10 * 60_000 + 1);
    expect(await browser.follow(callback)).toBe('/login?error=auth_failed');
  });

  it('a callback with no sign-in cookie, no state or an unknown platform is refused', async () => {
    const browser = new Browser(t.app);
    expect(await browser.follow('/api/auth/twitch/callback?code=x&state=y')).toBe('/login?error=auth_failed');
    await browser.follow('/api/auth/twitch?action=login');
    expect(await browser.follow('/api/auth/twitch/callback?code=x')).toBe('/login?error=auth_failed');
    expect(await browser.follow('/api/auth/myspace?action=login')).toBe('/login?error=auth_failed');
    expect(await browser.follow('/api/auth/twitch?action=hack')).toBe('/login?error=auth_failed');
  });
});

describe('linking and unlinking', () => {
  it('links a platform to the signed-in member (+25 tickets) and unlinks it (−25)', async () => {
    const member = await buildUser(t.app.database.db);
    const accessToken = await tokenFor(t.app, member);
    expect(await ticketsOf(t.app, accessToken)).toBe(100);
    const identity = newMember();
    standIn.signIn('twitch', identity);
    const browser = new Browser(t.app);
    const landing = await browser.roundTrip(`/api/connect/twitch?token=${accessToken}`);
    expect(`${landing.pathname}${landing.search}`).toBe('/profile?linked=twitch');
    expect(await ticketsOf(t.app, accessToken)).toBe(125);
    const me = await t.app.inject({ url: '/api/me', headers: bearer(accessToken) });
    expect(me.json().user.twitch_id).toBe(identity.id);

    const unlinked = await postAs(accessToken, '/api/me/disconnect', { platform: 'twitch' });
    expect(unlinked.statusCode).toBe(200);
    expect(unlinked.json().user.twitch_id).toBeNull();
    expect(await ticketsOf(t.app, accessToken)).toBe(100);
  });

  it('also knows the member by the refresh cookie when the navigation carries no token', async () => {
    const member = await buildUser(t.app.database.db);
    const { token } = await buildSession(t.app.database.db, member);
    const channel = newMember({ id: `UC${Date.now()}r` });
    standIn.signIn('youtube', channel);
    const browser = new Browser(t.app);
    browser.cookies.set(REFRESH_COOKIE, token);
    const landing = await browser.roundTrip('/api/connect/youtube');
    expect(`${landing.pathname}${landing.search}`).toBe('/profile?linked=youtube');
    expect((await rowOf(t.app, 'youtube', channel.id))[0]?.id).toBe(member.id);
  });

  it('refuses an identity that belongs to another account, and a navigation not signed in', async () => {
    const identity = newMember();
    await buildUser(t.app.database.db, { twitchId: identity.id });
    const member = await buildUser(t.app.database.db);
    standIn.signIn('twitch', identity);
    const browser = new Browser(t.app);
    const landing = await browser.roundTrip(`/api/connect/twitch?token=${await tokenFor(t.app, member)}`);
    expect(`${landing.pathname}${landing.search}`).toBe('/profile?error=identity_taken');
    const [row] = await t.app.database.db.select().from(users).where(eq(users.id, member.id));
    expect(row?.twitchId).toBeNull();

    expect(await new Browser(t.app).follow('/api/connect/twitch')).toBe('/login');
    expect(await new Browser(t.app).follow('/api/connect/twitch?token=forged')).toBe('/login');
  });

  it('a denied link comes back to the profile with the permission reason', async () => {
    const member = await buildUser(t.app.database.db);
    standIn.deny('twitch');
    const landing = await new Browser(t.app).roundTrip(
      `/api/connect/twitch?token=${await tokenFor(t.app, member)}`,
    );
    expect(`${landing.pathname}${landing.search}`).toBe('/profile?error=twitch_permission');
  });

  it('a member who has not accepted the terms is sent to complete the registration first', async () => {
    const member = await buildUser(t.app.database.db, { termsAcceptedAt: null, password: null });
    const headers = await authHeader(t.app, member);
    const browser = new Browser(t.app);
    const token = headers.authorization.slice('Bearer '.length);
    expect(await browser.follow(`/api/connect/twitch?token=${token}`)).toBe('/complete-registration');
  });
});

describe('the control socket before the terms', () => {
  it('refuses a member who has not accepted the terms, and opens once they have', async () => {
    const driving = await createCar(t.app);
    const { driver, controlToken, accessToken } = await takeCar(t.app, driving);
    // As a social sign-up is before /complete-registration (the writer's event drops the cached row).
    await t.app.database.db.update(users).set({ termsAcceptedAt: null }).where(eq(users.id, driver.id));
    t.app.events.emit('user.changed', { userId: driver.id, username: driver.username });
    const url = controllerUrl(host, driving.carId, accessToken, controlToken);
    expect(await refusedStatus(openSocket(url, originOf(t.app)))).toBe(403);

    const completed = await postAs(accessToken, '/api/auth/complete-registration');
    expect(completed.statusCode).toBe(200);
    const controller = await openSocket(url, originOf(t.app));
    await controller.close();
  });
});

describe('claim', () => {
  /** An admin runs a raffle whose only entry is the identity: it wins a pending prize. */
  async function win(identity: StandInMember, platform: Platform = 'twitch'): Promise<void> {
    const headers = await authHeader(t.app, await buildAdmin(t.app.database.db));
    const call = async (url: string, payload?: object) => {
      const response = await t.app.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) });
      expect(response.statusCode, response.body).toBeLessThan(300);
    };
    await call('/api/admin/race/start-raffle', { racers: 1 });
    await call('/api/admin/race/raffle-entries', {
      platform,
      platformUserId: identity.id,
      displayName: identity.name,
    });
    await call('/api/admin/race/draw-winners');
  }

  /** A car online over its socket, nobody driving it. */
  async function onlineCar() {
    const driving = await createCar(t.app);
    return { driving, car: await connectCar(host, driving.carId, driving.secret) };
  }

  it('the winner signs up, lands on a free car after the terms, and drives it', async () => {
    const winner = newMember();
    await win(winner);
    const { driving, car } = await onlineCar();
    standIn.signIn('twitch', winner);
    const browser = new Browser(t.app);
    const landing = await browser.roundTrip('/api/auth/twitch?action=claim');
    expect(landing.pathname).toBe('/auth/callback');
    const query = landing.searchParams;
    expect(query.get('destination')).toBe('/complete-registration');
    expect(query.get('final_destination')).toBe(`/control/${driving.carId}/${1000 + driving.carId}`);
    expect(query.get('carId')).toBe(String(driving.carId));
    const accessToken = await browser.exchange(query.get('token') ?? '');
    const completed = await postAs(accessToken, '/api/auth/complete-registration');
    expect(completed.statusCode).toBe(200);

    const controller = await openSocket(
      controllerUrl(host, driving.carId, accessToken, query.get('controlToken') ?? ''),
      originOf(t.app),
    );
    controller.send({ type: 'drive', throttle: 0.6, steer: 0 });
    await car.next((m) => m.type === 'drive' && m.throttle === 0.6);
    await controller.close();
    await car.close();

    // The prize is spent: the same identity claiming again finds no win.
    const again = await new Browser(t.app).roundTrip('/api/auth/twitch?action=claim');
    expect(`${again.pathname}${again.search}`).toBe('/claim?error=no_win_found');
  });

  it('a winner with an account goes straight to the car', async () => {
    const winner = newMember();
    const member = await buildUser(t.app.database.db, { twitchId: winner.id });
    await win(winner);
    const { driving, car } = await onlineCar();
    standIn.signIn('twitch', winner);
    const browser = new Browser(t.app);
    const landing = await browser.roundTrip('/api/auth/twitch?action=claim');
    expect(landing.searchParams.get('destination')).toBe(`/control/${driving.carId}/${1000 + driving.carId}`);
    expect(landing.searchParams.has('final_destination')).toBe(false);
    const accessToken = await browser.exchange(landing.searchParams.get('token') ?? '');
    const me = await t.app.inject({ url: '/api/me', headers: bearer(accessToken) });
    expect(me.json().user.id).toBe(member.id);
    await car.close();
  });

  it('another identity finds no win, and creates no account', async () => {
    await win(newMember());
    const other = newMember();
    standIn.signIn('twitch', other);
    const landing = await new Browser(t.app).roundTrip('/api/auth/twitch?action=claim');
    expect(`${landing.pathname}${landing.search}`).toBe('/claim?error=no_win_found');
    expect(await rowOf(t.app, 'twitch', other.id)).toHaveLength(0);
  });

  it('an expired prize finds no win', async () => {
    const winner = newMember();
    await win(winner);
    clock.advance(t.config.prizeClaimMinutes * 60_000 + 1);
    standIn.signIn('twitch', winner);
    const landing = await new Browser(t.app).roundTrip('/api/auth/twitch?action=claim');
    expect(`${landing.pathname}${landing.search}`).toBe('/claim?error=no_win_found');
  });

  it('no car free: the prize stays pending, and the winner claims it once a car is online', async () => {
    const winner = newMember();
    await win(winner);
    standIn.signIn('twitch', winner);
    const first = await new Browser(t.app).roundTrip('/api/auth/twitch?action=claim');
    expect(`${first.pathname}${first.search}`).toBe('/claim?error=no_car_free');
    expect(await t.app.raffles.hasPendingPrize({ platform: 'twitch', platformUserId: winner.id })).toBe(true);

    const { driving, car } = await onlineCar();
    const second = await new Browser(t.app).roundTrip('/api/auth/twitch?action=claim');
    expect(second.searchParams.get('carId')).toBe(String(driving.carId));
    await car.close();
  });

  it('20 claims of one prize at the same instant: exactly one wins it', async () => {
    const winner = newMember();
    await win(winner);
    const { car } = await onlineCar();
    standIn.signIn('twitch', winner);
    const browsers = Array.from({ length: 20 }, () => new Browser(t.app));
    const callbacks: string[] = [];
    for (const browser of browsers)
      callbacks.push(await browser.toProviderAndBack('/api/auth/twitch?action=claim'));
    const landings = await Promise.all(browsers.map((browser, i) => browser.follow(callbacks[i] ?? '')));
    expect(landings.filter((landing) => landing.startsWith('/auth/callback?'))).toHaveLength(1);
    expect(landings.filter((landing) => landing === '/claim?error=no_win_found')).toHaveLength(19);
    // One account for the identity, however many tabs raced to create it.
    expect(await rowOf(t.app, 'twitch', winner.id)).toHaveLength(1);
    await car.close();
  });
});
