// A local stand-in for Twitch's OAuth provider, for the browser tests (raffle.spec.ts): the
// e2e copy of the server tests' apps/server/src/test/oauth-stand-in.ts (Twitch only), on a fixed
// port (E2E_OAUTH_PORT) so both the browser (the authorize page) and the server (token and user
// endpoints) reach it. Playwright starts it as a webServer (playwright.config.ts), which also
// points the raffle server's TWITCH_* settings at it.
//
//   GET  /twitch/authorize   a browser's sign-in: no consent screen, it sends the browser straight
//                            back to redirect_uri with `code` and `state`, signed in as the current
//                            identity (below), or with `error=access_denied` when there is none.
//   POST /twitch/token       checks what Twitch checks: client id and secret (in the form body,
//                            as Twitch wants them), the code (single use), the redirect URI it was
//                            issued for, and the PKCE verifier against the S256 challenge.
//   GET  /twitch/api/users   the identity for `Authorization: Bearer` + `Client-Id`, answered like
//                            Helix: {data:[{id, login, display_name, profile_image_url}]}.
//   POST /control/identity   the test says who is signed in at "Twitch" from now on:
//                            JSON {id, name}, or {} for nobody (the next sign-in is denied).
//   GET  /health             200 once listening (Playwright waits for it).
//
// One identity at a time for the whole stand-in: only the raffle test uses it, and its steps run
// one after the other (test.describe.configure mode 'serial').
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const port = Number(process.env.E2E_OAUTH_PORT ?? 8282);
const clientId = process.env.E2E_OAUTH_CLIENT_ID ?? 'e2e-twitch-client';
const clientSecret = process.env.E2E_OAUTH_CLIENT_SECRET ?? 'e2e-twitch-secret';

/** Who is signed in at the provider: {id, name} or null. */
let identity = null;
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

function authorize(url, response) {
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

async function token(request, response) {
  const form = new URLSearchParams(await readBody(request));
  if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
    return refuse(response, 'client authentication failed');
  }
  const code = form.get('code') ?? '';
  const issued = codes.get(code);
  codes.delete(code);
  if (form.get('grant_type') !== 'authorization_code' || !issued)
    return refuse(response, 'unknown or used code');
  if (form.get('redirect_uri') !== issued.redirectUri) return refuse(response, 'redirect_uri mismatch');
  const verifier = form.get('code_verifier');
  if (!verifier) return refuse(response, 'code_verifier missing');
  if (base64url(createHash('sha256').update(verifier).digest()) !== issued.challenge) {
    return refuse(response, 'code_verifier does not match the challenge');
  }
  const accessToken = base64url(randomBytes(24));
  tokens.set(accessToken, issued.identity);
  // Twitch lists the granted scopes as an array.
  const scope = issued.scope.split(' ').filter(Boolean);
  json(response, 200, { access_token: accessToken, token_type: 'bearer', expires_in: 3600, scope });
}

function users(request, response) {
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const member = tokens.get(bearer);
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
  identity =
    typeof body.id === 'string' && typeof body.name === 'string' ? { id: body.id, name: body.name } : null;
  json(response, 200, { identity });
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
  const route = `${request.method} ${url.pathname}`;
  const handled =
    route === 'GET /twitch/authorize'
      ? authorize(url, response)
      : route === 'POST /twitch/token'
        ? token(request, response)
        : route === 'GET /twitch/api/users'
          ? users(request, response)
          : route === 'POST /control/identity'
            ? setIdentity(request, response)
            : route === 'GET /health'
              ? json(response, 200, { ok: true })
              : json(response, 404, { error: 'not_found' });
  Promise.resolve(handled).catch((error) => json(response, 500, { error: String(error) }));
});
server.listen(port, '127.0.0.1', () =>
  process.stdout.write(`oauth stand-in (Twitch) on http://127.0.0.1:${port}\n`),
);
// Keep-alive connections would hold server.close() open: the run is over, just go.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
