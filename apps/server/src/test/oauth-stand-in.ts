/**
 * Test support: local stand-ins for Twitch, Google (YouTube) and Discord on one node:http server,
 * answering like each provider's authorize, token and user endpoints (docs/social-sign-in.md).
 * The authorize endpoint sends the browser straight back with a code for the member the test
 * says is signed in at the provider (`signIn`), or with `error=access_denied` (`deny`). The token
 * endpoint checks what a real provider checks: the client's credentials (HTTP Basic, or in the
 * body for Twitch), the code (once), the redirect URI, and the PKCE verifier against the
 * challenge given at the authorize step.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Platform } from '@telerace/protocol';
import { readBody } from './stand-ins/request-body.js';

export interface StandInMember {
  id: string;
  name: string;
  avatar?: string;
  /** YouTube: an account without a channel (the identity cannot be read). */
  noChannel?: boolean;
  /** The scopes the member grants (default: every scope asked for). */
  grantedScope?: string;
}

interface IssuedCode {
  platform: Platform;
  member: StandInMember;
  clientId: string;
  redirectUri: string;
  challenge: string;
  scope: string;
}

export const STAND_IN_CREDENTIALS: Record<Platform, { id: string; secret: string }> = {
  twitch: { id: 'twitch-client', secret: 'twitch-secret' },
  youtube: { id: 'google-client', secret: 'google-secret' },
  discord: { id: 'discord-client', secret: 'discord-secret' },
};

const ENV_PREFIX: Record<Platform, { client: string; auth: string; token: string; api: string }> = {
  twitch: { client: 'TWITCH', auth: 'TWITCH_AUTH_URL', token: 'TWITCH_TOKEN_URL', api: 'TWITCH_API_URL' },
  youtube: { client: 'GOOGLE', auth: 'GOOGLE_AUTH_URL', token: 'GOOGLE_TOKEN_URL', api: 'YOUTUBE_API_URL' },
  discord: {
    client: 'DISCORD',
    auth: 'DISCORD_AUTH_URL',
    token: 'DISCORD_TOKEN_URL',
    api: 'DISCORD_API_URL',
  },
};

const base64url = (bytes: Buffer) => bytes.toString('base64url');

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

export class OAuthStandIn {
  readonly #server: Server;
  readonly #codes = new Map<string, IssuedCode>();
  readonly #tokens = new Map<string, IssuedCode>();
  readonly #signedIn = new Map<Platform, StandInMember>();
  readonly #denied = new Set<Platform>();
  /** Token requests refused, by reason (what a test asserts a refusal was for). */
  readonly refusals: string[] = [];
  url = '';

  private constructor() {
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) =>
        json(response, 500, { error: String(error) }),
      );
    });
  }

  static async start(): Promise<OAuthStandIn> {
    const standIn = new OAuthStandIn();
    await new Promise<void>((resolve) => standIn.#server.listen(0, '127.0.0.1', resolve));
    standIn.url = `http://127.0.0.1:${(standIn.#server.address() as AddressInfo).port}`;
    return standIn;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  /** The server's settings pointing at this stand-in, for the given platforms (the others unset). */
  env(platforms: readonly Platform[]): Record<string, string> {
    const env: Record<string, string> = {};
    for (const platform of platforms) {
      const names = ENV_PREFIX[platform];
      env[`${names.client}_CLIENT_ID`] = STAND_IN_CREDENTIALS[platform].id;
      env[`${names.client}_CLIENT_SECRET`] = STAND_IN_CREDENTIALS[platform].secret;
      env[names.auth] = `${this.url}/${platform}/authorize`;
      env[names.token] = `${this.url}/${platform}/token`;
      env[names.api] = `${this.url}/${platform}/api`;
    }
    return env;
  }

  /** Who is signed in at the provider (and consents) from now on. */
  signIn(platform: Platform, member: StandInMember): void {
    this.#signedIn.set(platform, member);
    this.#denied.delete(platform);
  }

  /** The member declines the consent screen. */
  deny(platform: Platform): void {
    this.#denied.add(platform);
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.url);
    const [, platform, ...rest] = url.pathname.split('/') as [string, Platform, ...string[]];
    const path = rest.join('/');
    if (!(platform in STAND_IN_CREDENTIALS)) return json(response, 404, { error: 'not_found' });
    if (path === 'authorize' && request.method === 'GET') return this.#authorize(platform, url, response);
    if (path === 'token' && request.method === 'POST') return this.#token(platform, request, response);
    if (path.startsWith('api/') && request.method === 'GET') {
      const [status, body] = this.#api(platform, path, request);
      return json(response, status, body);
    }
    return json(response, 404, { error: 'not_found' });
  }

  #authorize(platform: Platform, url: URL, response: ServerResponse): void {
    const query = url.searchParams;
    const redirectUri = query.get('redirect_uri') ?? '';
    const back = new URL(redirectUri);
    const state = query.get('state');
    if (state) back.searchParams.set('state', state);
    const member = this.#signedIn.get(platform);
    if (
      query.get('client_id') !== STAND_IN_CREDENTIALS[platform].id ||
      query.get('response_type') !== 'code' ||
      query.get('code_challenge_method') !== 'S256' ||
      !query.get('code_challenge')
    ) {
      back.searchParams.set('error', 'invalid_request');
    } else if (this.#denied.has(platform) || !member) {
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = base64url(randomBytes(16));
      this.#codes.set(code, {
        platform,
        member,
        clientId: STAND_IN_CREDENTIALS[platform].id,
        redirectUri,
        challenge: query.get('code_challenge') ?? '',
        scope: member.grantedScope ?? query.get('scope') ?? '',
      });
      back.searchParams.set('code', code);
    }
    response.writeHead(302, { location: back.toString() });
    response.end();
  }

  #refuse(response: ServerResponse, reason: string): void {
    this.refusals.push(reason);
    json(response, 400, { error: 'invalid_grant', error_description: reason });
  }

  async #token(platform: Platform, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(request));
    const credentials = STAND_IN_CREDENTIALS[platform];
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const [basicId, basicSecret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    // Twitch takes the credentials in the body only; the others in HTTP Basic.
    const [clientId, clientSecret] =
      platform === 'twitch' ? [form.get('client_id'), form.get('client_secret')] : [basicId, basicSecret];
    if (clientId !== credentials.id || clientSecret !== credentials.secret) {
      return this.#refuse(response, 'client authentication failed');
    }
    const code = form.get('code') ?? '';
    const issued = this.#codes.get(code);
    this.#codes.delete(code);
    if (form.get('grant_type') !== 'authorization_code' || !issued || issued.platform !== platform) {
      return this.#refuse(response, 'unknown or used code');
    }
    if (form.get('redirect_uri') !== issued.redirectUri)
      return this.#refuse(response, 'redirect_uri mismatch');
    const verifier = form.get('code_verifier');
    if (!verifier) return this.#refuse(response, 'code_verifier missing');
    if (base64url(createHash('sha256').update(verifier).digest()) !== issued.challenge) {
      return this.#refuse(response, 'code_verifier does not match the challenge');
    }
    const accessToken = base64url(randomBytes(24));
    this.#tokens.set(accessToken, issued);
    // Twitch lists the scopes as an array; Google and Discord as one space-separated string.
    const scope = platform === 'twitch' ? issued.scope.split(' ').filter(Boolean) : issued.scope;
    json(response, 200, { access_token: accessToken, token_type: 'bearer', expires_in: 3600, scope });
  }

  /** The user endpoints' answer: status and body. */
  #api(platform: Platform, path: string, request: IncomingMessage): [number, unknown] {
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const issued = this.#tokens.get(bearer);
    if (!issued || issued.platform !== platform) return [401, { error: 'invalid_token' }];
    const { member } = issued;
    if (platform === 'twitch' && path === 'api/users') {
      if (request.headers['client-id'] !== STAND_IN_CREDENTIALS.twitch.id) {
        return [401, { error: 'client id missing' }];
      }
      return [
        200,
        {
          data: [
            {
              id: member.id,
              login: member.name.toLowerCase(),
              display_name: member.name,
              profile_image_url: member.avatar ?? '',
            },
          ],
        },
      ];
    }
    if (platform === 'youtube' && path === 'api/channels') {
      if (!issued.scope.split(' ').includes('https://www.googleapis.com/auth/youtube.readonly')) {
        return [403, { error: { code: 403, message: 'insufficientPermissions' } }];
      }
      if (member.noChannel) return [200, { kind: 'youtube#channelListResponse', items: [] }];
      return [
        200,
        {
          items: [
            {
              id: member.id,
              snippet: {
                title: member.name,
                thumbnails: member.avatar ? { default: { url: member.avatar } } : {},
              },
            },
          ],
        },
      ];
    }
    if (platform === 'discord' && path === 'api/users/@me') {
      return [
        200,
        {
          id: member.id,
          username: member.name.toLowerCase(),
          global_name: member.name,
          avatar: member.avatar ?? null,
        },
      ];
    }
    return [404, { error: 'not_found' }];
  }
}
