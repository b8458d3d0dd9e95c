// A local stand-in for Twitch's and Discord's OAuth providers, for the browser tests (raffle.spec.ts,
// integrations.spec.ts): the e2e copy of the server tests' apps/server/src/test/oauth-stand-in.ts, on
// a fixed port (E2E_OAUTH_PORT) so both the browser (the authorize page) and the server (token and
// user endpoints) reach it. scripts/start-all.mjs starts it for Playwright (playwright.config.ts), which also
// points the raffle servers' TWITCH_* and DISCORD_* settings at it.
//
//   GET  /{p}/authorize      a browser's sign-in (p: twitch or discord): no consent screen, it sends
//                            the browser straight back to redirect_uri with `code` and `state`,
//                            signed in as that provider's current identity (below), or with
//                            `error=access_denied` when there is none.
//   POST /{p}/token          checks what the provider checks: client id and secret (Twitch: in the
//                            form body; Discord: HTTP Basic), the code (single use, and of this
//                            provider), the redirect URI it was issued for, and the PKCE verifier
//                            against the S256 challenge.
//   GET  /twitch/api/users   the identity for `Authorization: Bearer` + `Client-Id`, answered like
//                            Helix: {data:[{id, login, display_name, profile_image_url}]}.
//   GET  /discord/api/users/@me  the identity for `Authorization: Bearer`, as Discord answers it:
//                            {id, username, global_name, avatar}.
//   POST /control/identity   the test says who is signed in at a provider from now on: JSON
//                            {platform?, id, name} (platform: twitch when absent), or {platform?}
//                            for nobody (the next sign-in there is denied).
//   GET  /health             200 once listening (Playwright waits for it).
//
// One identity per provider at a time: each test file using it runs its steps one after the other
// (test.describe.configure mode 'serial').
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const port = Number(process.env.E2E_OAUTH_PORT ?? 8282);
const clientId = process.env.E2E_OAUTH_CLIENT_ID ?? 'e2e-twitch-client';
const clientSecret = process.env.E2E_OAUTH_CLIENT_SECRET ?? 'e2e-twitch-secret';

const PLATFORMS = ['twitch', 'discord'];
/** Who is signed in at each provider: {id, name} or null. */
const identities = { twitch: null, discord: null };
/** code → what it was issued for; access token → identity. */
const codes = new Map();
const tokens = new Map();

const base64url = (bytes) => Buffer.from(bytes).toString('base64url');

function json(response, status, body) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function readBody(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function authorize(platform, url, response) {
  const identity = identities[platform];
  const query = url.searchParams;
  const redirectUri = query.get('redirect_uri') ?? '';
  let back;
  try {
    back = new URL(redirectUri);
  } catch {
    return json(response, 400, { error: 'invalid_request', error_description: 'redirect_uri' });
  }
  const state = query.get('state');
  if (state) back.searchParams.set('state', state);
  if (
    query.get('client_id') !== clientId ||
    query.get('response_type') !== 'code' ||
    query.get('code_challenge_method') !== 'S256' ||
    !query.get('code_challenge')
  ) {
    back.searchParams.set('error', 'invalid_request');
  } else if (!identity) {
    back.searchParams.set('error', 'access_denied');
  } else {
    const code = base64url(randomBytes(16));
    codes.set(code, {
      platform,
      identity,
      redirectUri,
      challenge: query.get('code_challenge'),
      scope: query.get('scope') ?? '',
    });
    back.searchParams.set('code', code);
  }
  response.writeHead(302, { location: back.toString() });
  response.end();
}

function refuse(response, reason) {
  process.stderr.write(`oauth stand-in: token refused (${reason})\n`);
  json(response, 400, { error: 'invalid_grant', error_description: reason });
}

/** The client's id and secret: Twitch sends them in the form, Discord with HTTP Basic. */
function clientOf(platform, request, form) {
  if (platform === 'twitch') return { id: form.get('client_id'), secret: form.get('client_secret') };
  const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent);
  return { id, secret };
}

async function token(platform, request, response) {
  const form = new URLSearchParams(await readBody(request));
  const client = clientOf(platform, request, form);
  if (client.id !== clientId || client.secret !== clientSecret) {
    return refuse(response, 'client authentication failed');
  }
  const code = form.get('code') ?? '';
  const issued = codes.get(code);
  codes.delete(code);
  if (form.get('grant_type') !== 'authorization_code' || !issued || issued.platform !== platform)
    return refuse(response, 'unknown or used code');
  if (form.get('redirect_uri') !== issued.redirectUri) return refuse(response, 'redirect_uri mismatch');
  const verifier = form.get('code_verifier');
  if (!verifier) return refuse(response, 'code_verifier missing');
  if (base64url(createHash('sha256').update(verifier).digest()) !== issued.challenge) {
    return refuse(response, 'code_verifier does not match the challenge');
  }
  const accessToken = base64url(randomBytes(24));
  tokens.set(accessToken, { platform, identity: issued.identity });
  // Twitch lists the granted scopes as an array, Discord as one space-separated string.
  const scope = platform === 'twitch' ? issued.scope.split(' ').filter(Boolean) : issued.scope;
  json(response, 200, { access_token: accessToken, token_type: 'bearer', expires_in: 3600, scope });
}

/** The identity an access token of this provider was issued for, or undefined. */
function bearerIdentity(platform, request) {
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const issued = tokens.get(bearer);
  return issued?.platform === platform ? issued.identity : undefined;
}

function discordUser(request, response) {
  const member = bearerIdentity('discord', request);
  if (!member) return json(response, 401, { message: '401: Unauthorized', code: 0 });
  json(response, 200, {
    id: member.id,
    username: member.name.toLowerCase(),
    global_name: member.name,
    avatar: null,
  });
}

function users(request, response) {
  const member = bearerIdentity('twitch', request);
  if (!member) return json(response, 401, { error: 'invalid_token' });
  if (request.headers['client-id'] !== clientId) return json(response, 401, { error: 'client id missing' });
  json(response, 200, {
    data: [
      { id: member.id, login: member.name.toLowerCase(), display_name: member.name, profile_image_url: '' },
    ],
  });
}

async function setIdentity(request, response) {
  const body = JSON.parse((await readBody(request)) || '{}');
  const platform = body.platform ?? 'twitch';
  if (!PLATFORMS.includes(platform)) return json(response, 400, { error: 'unknown platform' });
  identities[platform] =
    typeof body.id === 'string' && typeof body.name === 'string' ? { id: body.id, name: body.name } : null;
  json(response, 200, { platform, identity: identities[platform] });
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
  const route = `${request.method} ${url.pathname}`;
  const [, platform = '', step = ''] =
    /^(?:GET|POST) \/(twitch|discord)\/(authorize|token)$/.exec(route) ?? [];
  const handled =
    step === 'authorize' && request.method === 'GET'
      ? authorize(platform, url, response)
      : step === 'token' && request.method === 'POST'
        ? token(platform, request, response)
        : route === 'GET /twitch/api/users'
          ? users(request, response)
          : route === 'GET /discord/api/users/@me'
            ? discordUser(request, response)
            : route === 'POST /control/identity'
              ? setIdentity(request, response)
              : route === 'GET /health'
                ? json(response, 200, { ok: true })
                : json(response, 404, { error: 'not_found' });
  Promise.resolve(handled).catch((error) => json(response, 500, { error: String(error) }));
});
// Idle keep-alive connections stay open for the whole run: with Node's 5 s default the stand-in
// closed one just as Playwright's request context reused it (ECONNRESET, "socket hang up").
server.keepAliveTimeout = 10 * 60_000;
server.listen(port, '127.0.0.1', () =>
  process.stdout.write(`oauth stand-in (Twitch, Discord) on http://127.0.0.1:${port}\n`),
);
// Keep-alive connections would hold server.close() open: the run is over, just go.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
