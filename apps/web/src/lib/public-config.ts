/** The deployment's public settings (promo video, community links, bot-check site key, sign-in platforms, support address). */
import { useQuery } from '@tanstack/react-query';
import {
  type Platform,
  type PublicConfig,
  SITE_LINK_PATTERN,
  SUPPORT_EMAIL_PATTERN,
} from '@telerace/protocol';
import { sendRequest } from './api';

type Fields = Record<string, unknown>;

const isFields = (value: unknown): value is Fields => typeof value === 'object' && value !== null;

function linkOrNull(fields: Fields, key: string): string | null {
  const value = fields[key];
  if (value === null || (typeof value === 'string' && SITE_LINK_PATTERN.test(value))) return value;
  throw new Error(`public config: ${key} is not a site link`);
}

/**
 * The protocol's `PublicConfig.parse`, without zod: the landing page reads the public config, and
 * zod would be a sixth of that page's download (issue 11 §4). Same answers as the schema (unknown
 * fields left out, an invalid body rejected): public-config.test.ts holds the two together.
 */
export function parsePublicConfig(body: unknown): PublicConfig {
  if (!isFields(body) || !isFields(body.community)) throw new Error('public config: not an object');
  const { recaptchaSiteKey, supportEmail } = body;
  if (recaptchaSiteKey !== null && typeof recaptchaSiteKey !== 'string') {
    throw new Error('public config: recaptchaSiteKey is not a string');
  }
  if (
    supportEmail !== null &&
    (typeof supportEmail !== 'string' || !SUPPORT_EMAIL_PATTERN.test(supportEmail))
  ) {
    throw new Error('public config: supportEmail is not an address');
  }
  return {
    promoVideoUrl: linkOrNull(body, 'promoVideoUrl'),
    community: {
      streaming: linkOrNull(body.community, 'streaming'),
      video: linkOrNull(body.community, 'video'),
      chat: linkOrNull(body.community, 'chat'),
    },
    recaptchaSiteKey,
    socialProviders: socialProvidersOf(body.socialProviders),
    supportEmail,
  };
}

/** Which social sign-in providers are configured. */
function socialProvidersOf(value: unknown): PublicConfig['socialProviders'] {
  if (!isFields(value)) throw new Error('public config: socialProviders is not an object');
  const flag = (name: 'twitch' | 'youtube' | 'discord') => {
    if (typeof value[name] !== 'boolean')
      throw new Error(`public config: socialProviders.${name} is not a boolean`);
    return value[name] as boolean;
  };
  return { twitch: flag('twitch'), youtube: flag('youtube'), discord: flag('discord') };
}

/** Every platform a member can sign in with, in the order the screens show them. */
export const SOCIAL_PLATFORMS = ['twitch', 'youtube', 'discord'] as const satisfies readonly Platform[];

/**
 * The platforms this deployment can sign in with (their app credentials are set), in screen order;
 * undefined while the config loads. If it cannot be read, all of them: the server refuses an
 * unconfigured one with a clear message, which beats offering none.
 */
export function useSocialPlatforms(): Platform[] | undefined {
  const { data, isError } = usePublicConfig();
  if (isError) return [...SOCIAL_PLATFORMS];
  return data && SOCIAL_PLATFORMS.filter((platform) => data.socialProviders[platform]);
}

export async function fetchPublicConfig(): Promise<PublicConfig> {
  const res = await sendRequest('/api/public-config', { credentials: 'same-origin' });
  if (!res.ok) throw new Error(`public config: HTTP ${res.status}`);
  return parsePublicConfig(await res.json());
}

/**
 * The address members write to for help (SUPPORT_EMAIL), the one place every screen reads it from:
 * null when the deployment has none (the screen then says to contact the organiser), undefined
 * while the config loads.
 */
export function useSupportEmail(): string | null | undefined {
  const { data, isError } = usePublicConfig();
  return isError ? null : data?.supportEmail;
}

/** The public config's query: fetched once per page, shared by every screen that reads it. */
export const publicConfigQuery = {
  queryKey: ['public-config'],
  queryFn: fetchPublicConfig,
  staleTime: Number.POSITIVE_INFINITY,
} as const;

export function usePublicConfig() {
  return useQuery(publicConfigQuery);
}
