/** Which social sign-ins this deployment lacks (public config `socialProviders`, as log-in reads it). */
import type { Platform } from '@telerace/protocol';
import { usePublicConfig } from '../../lib/public-config';
import { SOCIAL_ORDER } from './SocialButtons';

/** The platforms whose sign-in is not configured, in the buttons' order; none while the config is unknown. */
export function useUnconfiguredPlatforms(): Platform[] {
  const providers = usePublicConfig().data?.socialProviders;
  return providers ? SOCIAL_ORDER.filter((platform) => !providers[platform]) : [];
}
