/**
 * `npm run twitch:subscribe [-- --channel <login>]`: creates the EventSub webhook subscriptions
 * the Twitch integration listens to (docs/integrations.md "Twitch") — channel.subscribe,
 * channel.subscription.message, channel.subscription.end and channel.cheer — for the channel,
 * calling back `${PUBLIC_URL}/api/webhooks/twitch` signed with TWITCH_EVENTSUB_SECRET.
 *
 * It reads the server's settings from the environment: TWITCH_CLIENT_ID and
 * TWITCH_CLIENT_SECRET (an app access token, client credentials, from TWITCH_TOKEN_URL),
 * TWITCH_API_URL (Helix), TWITCH_CHANNEL (or --channel), TWITCH_EVENTSUB_SECRET and PUBLIC_URL.
 * The server must be reachable at PUBLIC_URL over https: Twitch verifies each subscription by
 * calling it right away. Running it again is harmless (existing subscriptions are kept).
 */
import { pathToFileURL } from 'node:url';
import { coreConfig } from '../src/config/core.config.js';
import { parseSetting, type Setting } from '../src/config/define.js';
import { EVENTSUB_TYPES } from '../src/integrations/twitch/eventsub-events.js';
import { twitchConfig } from '../src/integrations/twitch/twitch.config.js';
import { socialConfig } from '../src/modules/social/social.config.js';

/** A problem to fix (settings, credentials, Twitch's answer): printed as one line. */
export class TwitchSubscribeError extends Error {}

export interface TwitchSubscribeSettings {
  clientId: string;
  clientSecret: string;
  tokenUrl: string;
  apiUrl: string;
  channel: string;
  callback: string;
  secret: string;
}

/** What happened to each subscription type. */
export interface SubscribeOutcome {
  type: string;
  result: 'created' | 'exists' | 'failed';
  detail: string;
}

function read<T>(entry: Setting<T>, env: Record<string, string | undefined>): T | null {
  const parsed = parseSetting(entry as Setting<unknown>, env[entry.env]);
  if (!parsed.ok) throw new TwitchSubscribeError(parsed.problem);
  return parsed.value as T | null;
}

/** The settings it needs, each missing one named. */
export function subscribeSettingsFrom(
  env: Record<string, string | undefined>,
  args: readonly string[] = [],
): TwitchSubscribeSettings {
  const channelArg = args.indexOf('--channel');
  const channelRaw = channelArg === -1 ? env.TWITCH_CHANNEL : args[channelArg + 1];
  const clientId = read(socialConfig.settings.twitchClientId, env);
  const clientSecret = read(socialConfig.settings.twitchClientSecret, env);
  const channel = read(twitchConfig.settings.twitchChannel, { TWITCH_CHANNEL: channelRaw });
  const secret = read(twitchConfig.settings.twitchEventSubSecret, env);
  const publicUrl = read(coreConfig.settings.publicUrl, env);
  const missing = [
    clientId === null && 'TWITCH_CLIENT_ID',
    clientSecret === null && 'TWITCH_CLIENT_SECRET',
    channel === null && 'TWITCH_CHANNEL (or --channel <login>)',
    secret === null && 'TWITCH_EVENTSUB_SECRET',
    publicUrl === null && 'PUBLIC_URL',
  ].filter((name): name is string => name !== false);
  if (missing.length > 0) throw new TwitchSubscribeError(`missing settings: ${missing.join(', ')}`);
  const callbackUrl = new URL(`${publicUrl}/api/webhooks/twitch`);
  // Twitch calls only https on port 443; plain http is for a local stand-in.
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(callbackUrl.hostname);
  if (
    !local &&
    (callbackUrl.protocol !== 'https:' || (callbackUrl.port !== '' && callbackUrl.port !== '443'))
  ) {
    throw new TwitchSubscribeError(
      `PUBLIC_URL must be the site's public https:// address on port 443 (Twitch calls ${callbackUrl.href} back)`,
    );
  }
  return {
    clientId: clientId as string,
    clientSecret: clientSecret as string,
    tokenUrl: read(socialConfig.settings.twitchTokenUrl, env) as string,
    apiUrl: (read(socialConfig.settings.twitchApiUrl, env) as string).replace(/\/+$/, ''),
    channel: channel as string,
    callback: callbackUrl.href,
    secret: secret as string,
  };
}

async function twitchError(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  let message = text.slice(0, 200);
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? message;
  } catch {
    // Not JSON: the text as it is.
  }
  return `HTTP ${response.status}${message ? `: ${message}` : ''}`;
}

/** An app access token (client credentials). */
async function appAccessToken(settings: TwitchSubscribeSettings): Promise<string> {
  const response = await fetch(settings.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: settings.clientId,
      client_secret: settings.clientSecret,
      grant_type: 'client_credentials',
    }),
  });
  if (!response.ok) {
    throw new TwitchSubscribeError(
      `Twitch refused the app's credentials (TWITCH_CLIENT_ID/SECRET): ${await twitchError(response)}`,
    );
  }
  const token = ((await response.json()) as { access_token?: unknown }).access_token;
  if (typeof token !== 'string') throw new TwitchSubscribeError('Twitch sent no access token');
  return token;
}

/**
 * Creates the subscriptions, printing a line per step. Throws TwitchSubscribeError for what stops
 * it (credentials, unknown channel); a refused subscription is reported and the others still made.
 */
export async function subscribeToEventSub(
  settings: TwitchSubscribeSettings,
  print: (line: string) => void,
): Promise<SubscribeOutcome[]> {
  let token: string;
  try {
    token = await appAccessToken(settings);
  } catch (error) {
    if (error instanceof TwitchSubscribeError) throw error;
    throw new TwitchSubscribeError(`could not reach ${settings.tokenUrl}: ${(error as Error).message}`);
  }
  print('App access token: ok');
  const helix = (path: string, init: RequestInit = {}) =>
    fetch(`${settings.apiUrl}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        'client-id': settings.clientId,
        'content-type': 'application/json',
      },
    });

  const users = await helix(`/users?login=${encodeURIComponent(settings.channel)}`);
  if (!users.ok) throw new TwitchSubscribeError(`Helix /users: ${await twitchError(users)}`);
  const broadcaster = ((await users.json()) as { data?: { id: string }[] }).data?.[0];
  if (!broadcaster) throw new TwitchSubscribeError(`Twitch has no channel named "${settings.channel}"`);
  print(`Channel ${settings.channel}: broadcaster id ${broadcaster.id}`);
  print(`Callback: ${settings.callback}`);

  const outcomes: SubscribeOutcome[] = [];
  for (const { type, version } of EVENTSUB_TYPES) {
    const response = await helix('/eventsub/subscriptions', {
      method: 'POST',
      body: JSON.stringify({
        type,
        version,
        condition: { broadcaster_user_id: broadcaster.id },
        transport: { method: 'webhook', callback: settings.callback, secret: settings.secret },
      }),
    });
    let outcome: SubscribeOutcome;
    if (response.ok) {
      const created = ((await response.json()) as { data?: { id: string; status: string }[] }).data?.[0];
      outcome = {
        type,
        result: 'created',
        detail: `${created?.status ?? 'created'} (id ${created?.id ?? '?'})`,
      };
    } else if (response.status === 409) {
      outcome = { type, result: 'exists', detail: 'already subscribed' };
    } else {
      const hint =
        response.status === 403
          ? ' — the broadcaster must authorize this app once with the scopes channel:read:subscriptions and bits:read'
          : '';
      outcome = { type, result: 'failed', detail: `${await twitchError(response)}${hint}` };
    }
    print(`${type}: ${outcome.result}, ${outcome.detail}`);
    outcomes.push(outcome);
  }
  return outcomes;
}

/** The command: settings from the environment, exit code 1 when anything failed. */
export async function main(
  env: Record<string, string | undefined> = process.env,
  args: readonly string[] = process.argv.slice(2),
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  printError: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<number> {
  try {
    const outcomes = await subscribeToEventSub(subscribeSettingsFrom(env, args), print);
    const failed = outcomes.filter((outcome) => outcome.result === 'failed').length;
    print(failed === 0 ? 'Done: Twitch will verify the callback now.' : `${failed} subscription(s) failed.`);
    return failed === 0 ? 0 : 1;
  } catch (error) {
    const message =
      error instanceof TwitchSubscribeError ? error.message : String((error as Error).message ?? error);
    printError(`twitch:subscribe failed: ${message}`);
    return 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main();
}
