/**
 * The three sign-in providers, one description each: the scopes asked for, how the client
 * authenticates at the token endpoint, and how the member's identity is read with the access
 * token. The identity is (platform, the platform's own user id) — never an e-mail — plus what a
 * new account borrows from it (a display name, an avatar).
 */
import { AvatarUrl, type Platform } from '@telerace/protocol';
import { z } from 'zod';

export interface SocialIdentity {
  platform: Platform;
  platformUserId: string;
  /** The name a new account's username is made from. */
  displayName: string;
  avatarUrl: string | null;
}

/**
 * The member refused a permission the identity needs (or the provider did not grant it): the
 * sign-in ends with `reason=<platform>_permission`, which asks them to grant everything.
 */
export class MissingPermission extends Error {
  override name = 'MissingPermission';
}

/** Why reading the identity failed for any other reason (provider down, unexpected answer). */
export class IdentityUnreadable extends Error {
  override name = 'IdentityUnreadable';
}

export interface ProviderDescription {
  platform: Platform;
  /** Only what reading the identity needs. */
  scopes: string[];
  /**
   * Where the client id and secret go in the token request: HTTP Basic (the OAuth 2.0 default,
   * what arctic's generic client sends) or the form body (Twitch accepts nothing else).
   */
  clientAuth: 'basic' | 'body';
  /** Reads the identity behind an access token from the provider's API at `apiUrl`. */
  readIdentity(apiUrl: string, accessToken: string, clientId: string): Promise<SocialIdentity>;
}

/** Only an http(s) picture URL the profile schema accepts is kept. */
function avatarOrNull(url: unknown): string | null {
  if (typeof url !== 'string' || url === '') return null;
  return AvatarUrl.safeParse(url).success ? url : null;
}

/** GET of a JSON resource with the member's token; 401/403 mean a permission is missing. */
async function getJson(url: string, headers: Record<string, string>): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json', ...headers } });
  } catch (error) {
    throw new IdentityUnreadable(`identity request failed: ${(error as Error).message}`);
  }
  if (response.status === 401 || response.status === 403) {
    throw new MissingPermission(`identity request refused (${response.status})`);
  }
  if (!response.ok) throw new IdentityUnreadable(`identity request answered ${response.status}`);
  try {
    return await response.json();
  } catch {
    throw new IdentityUnreadable('identity answer is not JSON');
  }
}

function parsed<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new IdentityUnreadable(`unexpected identity answer: ${result.error.message}`);
  return result.data;
}

const PlatformId = z.union([z.string().min(1).max(64), z.number().int().transform(String)]);

const TwitchUsers = z.object({
  data: z.array(
    z.object({
      id: PlatformId,
      login: z.string(),
      display_name: z.string().optional(),
      profile_image_url: z.string().optional(),
    }),
  ),
});

const YouTubeChannels = z.object({
  items: z
    .array(
      z.object({
        id: PlatformId,
        snippet: z
          .object({
            title: z.string().optional(),
            thumbnails: z.record(z.string(), z.object({ url: z.string() }).partial()).optional(),
          })
          .optional(),
      }),
    )
    .optional(),
});

const DiscordUser = z.object({
  id: PlatformId,
  username: z.string(),
  global_name: z.string().nullable().optional(),
  avatar: z.string().nullable().optional(),
});

const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}` });

export const PROVIDERS: Record<Platform, ProviderDescription> = {
  twitch: {
    platform: 'twitch',
    // The id and names come with any token, but Twitch's authorize endpoint requires a scope:
    // this is the narrowest one about the member themself (the e-mail is never read nor stored).
    scopes: ['user:read:email'],
    clientAuth: 'body',
    async readIdentity(apiUrl, accessToken, clientId) {
      const answer = parsed(
        TwitchUsers,
        await getJson(`${apiUrl}/users`, { ...bearer(accessToken), 'client-id': clientId }),
      );
      const user = answer.data[0];
      if (!user) throw new IdentityUnreadable('Twitch answered no user');
      return {
        platform: 'twitch',
        platformUserId: user.id,
        displayName: user.display_name || user.login,
        avatarUrl: avatarOrNull(user.profile_image_url),
      };
    },
  },
  youtube: {
    platform: 'youtube',
    // The identity is the member's YouTube channel, which only this scope lets us read.
    scopes: ['https://www.googleapis.com/auth/youtube.readonly'],
    clientAuth: 'basic',
    async readIdentity(apiUrl, accessToken) {
      const answer = parsed(
        YouTubeChannels,
        await getJson(`${apiUrl}/channels?part=snippet&mine=true`, bearer(accessToken)),
      );
      const channel = answer.items?.[0];
      // A Google account without a channel has no identity we can key on (and the scope may
      // have been left unticked): the member is told to grant YouTube's permission.
      if (!channel) throw new MissingPermission('no YouTube channel');
      const thumbnails = channel.snippet?.thumbnails ?? {};
      return {
        platform: 'youtube',
        platformUserId: channel.id,
        displayName: channel.snippet?.title ?? '',
        avatarUrl: avatarOrNull(thumbnails.high?.url ?? thumbnails.medium?.url ?? thumbnails.default?.url),
      };
    },
  },
  discord: {
    platform: 'discord',
    scopes: ['identify'],
    clientAuth: 'basic',
    async readIdentity(apiUrl, accessToken) {
      const user = parsed(DiscordUser, await getJson(`${apiUrl}/users/@me`, bearer(accessToken)));
      return {
        platform: 'discord',
        platformUserId: user.id,
        displayName: user.global_name || user.username,
        avatarUrl: user.avatar
          ? avatarOrNull(
              `https://cdn.discordapp.com/avatars/${encodeURIComponent(user.id)}/${encodeURIComponent(user.avatar)}.png`,
            )
          : null,
      };
    },
  },
};
