/** The signed-in user's ticket count and its breakdown (`GET /api/me/tickets`, spec §7, §9). */

import { useQuery } from '@tanstack/react-query';
import type { TicketsResponse as Tickets } from '@telerace/protocol';
import { authFetch } from '../../lib/auth-client';
import { parseWith } from '../../lib/schemas';

export const TICKETS_REFRESH_MS = 30_000;

/** Prefix of every tickets query; invalidate it after anything that changes the count. */
export const TICKETS_QUERY_KEY = ['tickets'] as const;

export async function fetchTickets(): Promise<Tickets> {
  try {
    return await parseWith('TicketsResponse', await authFetch('/me/tickets'));
  } catch (error) {
    // Spec §8: a failure is only logged; the badge stays hidden.
    console.error('Failed to fetch tickets', error);
    throw error;
  }
}

/** The tickets of the user `userId`, refetched every 30 s and when the window regains focus. */
export function useTickets(userId: number | null) {
  return useQuery({
    queryKey: [...TICKETS_QUERY_KEY, userId],
    queryFn: fetchTickets,
    enabled: userId !== null,
    refetchInterval: TICKETS_REFRESH_MS,
    refetchOnWindowFocus: true,
  });
}
