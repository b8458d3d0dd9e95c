/** Which social sign-ins this deployment lacks (public config `socialProviders`, as log-in reads it). */
import type { Platform } from '@telerace/protocol';
import { SOCIAL_PLATFORMS, usePublicConfig } from '../../lib/public-config';

/** The platforms whose sign-in is not configured, in the buttons' order; none while the config is unknown. */
export function useUnconfiguredPlatforms(): Platform[] {
  const providers = usePublicConfig().data?.socialProviders;
  return providers ? SOCIAL_PLATFORMS.filter((platform) => !providers[platform]) : [];
}
