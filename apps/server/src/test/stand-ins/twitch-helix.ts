/**
 * Test support: a stand-in for the Twitch API parts `npm run twitch:subscribe` uses, on one
 * node:http server on 127.0.0.1: the client-credentials token endpoint (`/oauth2/token`), Helix's
 * `GET /helix/users?login=` and `POST /helix/eventsub/subscriptions`. Like Twitch, it checks the
 * app's credentials and token, refuses a duplicate subscription (409), and verifies a new webhook
 * subscription by sending the signed challenge to its callback: the subscription is `enabled` only
 * if the callback echoes it.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HelixSubscription {
  id: string;
  type: string;
  version: string;
  condition: Record<string, string>;
  callback: string;
  secret: string;
  status: 'webhook_callback_verification_pending' | 'enabled' | 'webhook_callback_verification_failed';
}

export interface TwitchHelixStandInOptions {
  clientId: string;
  clientSecret: string;
  /** Channels by login: their user id. */
  channels: Record<string, string>;
  /** Types Twitch refuses for want of the broadcaster's authorization (403). */
  unauthorizedTypes?: string[];
}

export interface TwitchHelixStandIn {
  /** TWITCH_TOKEN_URL */
  tokenUrl: string;
  /** TWITCH_API_URL */
  apiUrl: string;
  subscriptions(): HelixSubscription[];
  close(): Promise<void>;
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

const helixError = (response: ServerResponse, status: number, error: string, message: string) =>
  json(response, status, { error, status, message });

export async function startTwitchHelixStandIn(
  options: TwitchHelixStandInOptions,
): Promise<TwitchHelixStandIn> {
  const tokens = new Set<string>();
  const subscriptions: HelixSubscription[] = [];

  /** Twitch's verification: the signed challenge to the callback, which must echo it. */
  const verify = async (subscription: HelixSubscription) => {
    const challenge = randomBytes(16).toString('hex');
    const messageId = randomUUID();
    const timestamp = new Date().toISOString();
    const body = JSON.stringify({
      challenge,
      subscription: {
        id: subscription.id,
        status: subscription.status,
        type: subscription.type,
        version: subscription.version,
        cost: 0,
        condition: subscription.condition,
        transport: { method: 'webhook', callback: subscription.callback },
        created_at: timestamp,
      },
    });
    const signature = createHmac('sha256', subscription.secret)
      .update(messageId + timestamp + body)
      .digest('hex');
    try {
      const response = await fetch(subscription.callback, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'twitch-eventsub-message-id': messageId,
          'twitch-eventsub-message-retry': '0',
          'twitch-eventsub-message-type': 'webhook_callback_verification',
          'twitch-eventsub-message-signature': `sha256=${signature}`,
          'twitch-eventsub-message-timestamp': timestamp,
          'twitch-eventsub-subscription-type': subscription.type,
          'twitch-eventsub-subscription-version': subscription.version,
        },
        body,
      });
      subscription.status =
        response.ok && (await response.text()) === challenge
          ? 'enabled'
          : 'webhook_callback_verification_failed';
    } catch {
      subscription.status = 'webhook_callback_verification_failed';
    }
  };

  const authorized = (request: IncomingMessage) => {
    const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    return bearer !== undefined && tokens.has(bearer) && request.headers['client-id'] === options.clientId;
  };

  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const body = await readBody(request);
    if (request.method === 'POST' && url.pathname === '/oauth2/token') {
      const form = new URLSearchParams(body);
      if (
        form.get('grant_type') !== 'client_credentials' ||
        form.get('client_id') !== options.clientId ||
        form.get('client_secret') !== options.clientSecret
      ) {
        json(response, 403, { status: 403, message: 'invalid client secret' });
        return;
      }
      const token = randomBytes(15).toString('hex');
      tokens.add(token);
      json(response, 200, { access_token: token, expires_in: 5_000_000, token_type: 'bearer' });
      return;
    }
    if (!url.pathname.startsWith('/helix/')) {
      helixError(response, 404, 'Not Found', 'no such endpoint');
      return;
    }
    if (!authorized(request)) {
      helixError(response, 401, 'Unauthorized', 'OAuth token is missing or invalid');
      return;
    }
    if (request.method === 'GET' && url.pathname === '/helix/users') {
      const login = url.searchParams.get('login') ?? '';
      const id = options.channels[login];
      json(response, 200, {
        data:
          id === undefined
            ? []
            : [{ id, login, display_name: login, type: '', broadcaster_type: 'affiliate' }],
      });
      return;
    }
    if (request.method === 'POST' && url.pathname === '/helix/eventsub/subscriptions') {
      const request_ = JSON.parse(body) as {
        type: string;
        version: string;
        condition: Record<string, string>;
        transport: { method: string; callback: string; secret: string };
      };
      if (request_.transport?.method !== 'webhook' || !(request_.transport.secret?.length >= 10)) {
        helixError(response, 400, 'Bad Request', 'invalid transport');
        return;
      }
      if (options.unauthorizedTypes?.includes(request_.type)) {
        helixError(response, 403, 'Forbidden', 'subscription missing proper authorization');
        return;
      }
      const same = subscriptions.find(
        (s) =>
          s.type === request_.type &&
          s.status !== 'webhook_callback_verification_failed' &&
          JSON.stringify(s.condition) === JSON.stringify(request_.condition),
      );
      if (same) {
        helixError(response, 409, 'Conflict', 'subscription already exists');
        return;
      }
      const subscription: HelixSubscription = {
        id: randomUUID(),
        type: request_.type,
        version: request_.version,
        condition: request_.condition,
        callback: request_.transport.callback,
        secret: request_.transport.secret,
        status: 'webhook_callback_verification_pending',
      };
      subscriptions.push(subscription);
      json(response, 202, {
        data: [
          {
            id: subscription.id,
            status: subscription.status,
            type: subscription.type,
            version: subscription.version,
            condition: subscription.condition,
            created_at: new Date().toISOString(),
            transport: { method: 'webhook', callback: subscription.callback },
            cost: 1,
          },
        ],
        total: subscriptions.length,
        total_cost: subscriptions.length,
        max_total_cost: 10_000,
      });
      // Twitch verifies right after answering.
      void verify(subscription);
      return;
    }
    helixError(response, 404, 'Not Found', 'no such endpoint');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    tokenUrl: `${base}/oauth2/token`,
    apiUrl: `${base}/helix`,
    subscriptions: () => subscriptions.map((subscription) => ({ ...subscription })),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
