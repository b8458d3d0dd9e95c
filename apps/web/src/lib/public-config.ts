/** The deployment's public settings (promo video, community links, bot-check site key). */
import { useQuery } from '@tanstack/react-query';
import { PublicConfig } from '@telerace/protocol';

export async function fetchPublicConfig(): Promise<PublicConfig> {
  const res = await fetch('/api/public-config', { credentials: 'same-origin' });
  if (!res.ok) throw new Error(`public config: HTTP ${res.status}`);
  return PublicConfig.parse(await res.json());
}

export function usePublicConfig() {
  return useQuery({
    queryKey: ['public-config'],
    queryFn: fetchPublicConfig,
    staleTime: Number.POSITIVE_INFINITY,
  });
}
