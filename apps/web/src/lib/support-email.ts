/**
 * The site's support address, where people are sent when the site cannot help them itself (a
 * winner whose platform has no sign-in here). Today the placeholder the help pages write out;
 * issue 41 point 12 makes it a server setting (`SUPPORT_EMAIL`) in the public config, read here
 * first once the config carries it.
 */
import { usePublicConfig } from './public-config';

const PLACEHOLDER_SUPPORT_EMAIL = 'support@telerace.example';

export function useSupportEmail(): string {
  const config = usePublicConfig().data as { supportEmail?: string | null } | undefined;
  return config?.supportEmail || PLACEHOLDER_SUPPORT_EMAIL;
}
