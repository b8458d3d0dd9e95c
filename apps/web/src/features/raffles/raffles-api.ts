/**
 * The raffle calls (issue 13; spec §7 "/admin/race/start-raffle|draw-winners|abort-raffle|
 * clear-pending-wins"): the admin's Race Control raffle half and the public raffle page.
 */
import {
  AdminRaffleResponse,
  ClearPendingWinsResponse,
  RaffleEntriesPage,
  type RaffleEntryRequest,
  RaffleSummary,
} from '@telerace/protocol';
import { ApiError, authFetch } from '../../lib/auth-client';

export const ADMIN_RAFFLE_KEY = ['admin', 'raffle'] as const;
export const raffleKey = (id: number) => ['raffles', id] as const;
export const CURRENT_RAFFLE_KEY = ['raffles', 'current'] as const;
export const raffleEntriesKey = (id: number) => ['raffles', id, 'entries'] as const;
export const raffleCheckKey = (id: number) => ['raffles', id, 'check'] as const;

export function fetchAdminRaffle(): Promise<AdminRaffleResponse> {
  return authFetch('/admin/raffle', {}, AdminRaffleResponse);
}

export function startRaffle(racers: number): Promise<AdminRaffleResponse> {
  return authFetch('/admin/race/start-raffle', { method: 'POST', json: { racers } }, AdminRaffleResponse);
}

export function drawWinners(): Promise<AdminRaffleResponse> {
  return authFetch('/admin/race/draw-winners', { method: 'POST' }, AdminRaffleResponse);
}

export function abortRaffle(): Promise<AdminRaffleResponse> {
  return authFetch('/admin/race/abort-raffle', { method: 'POST' }, AdminRaffleResponse);
}

/** The server answers how many prizes it cleared, not the view (hence undefined): the page reads the view again. */
export async function clearExpiredWins(): Promise<undefined> {
  await authFetch('/admin/race/clear-pending-wins', { method: 'POST' }, ClearPendingWinsResponse);
  return undefined;
}

/** An admin adding a chat identity by hand (events without a chat integration). */
export async function addRaffleEntry(entry: RaffleEntryRequest): Promise<void> {
  await authFetch('/admin/race/raffle-entries', { method: 'POST', json: entry });
}

/** The raffle's summary (no entries: those are paged). */
export function fetchRaffle(id: number): Promise<RaffleSummary> {
  return authFetch(`/raffles/${id}`, {}, RaffleSummary);
}

/** The open raffle, else the last one (/claim reads its winners' deadline); null when there was none. */
export async function fetchCurrentRaffle(): Promise<RaffleSummary | null> {
  try {
    return await authFetch('/raffles/current', {}, RaffleSummary);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

export function fetchRaffleEntries(id: number, page: number, limit: number): Promise<RaffleEntriesPage> {
  return authFetch(`/raffles/${id}/entries?page=${page}&limit=${limit}`, {}, RaffleEntriesPage);
}

/** The whole record, unparsed: the in-browser check reads it as any viewer's copy would be read. */
export function fetchRaffleRecord(id: number): Promise<unknown> {
  return authFetch(`/raffles/${id}/record`);
}

/**
 * The whole record (every entry): the download, and what the verification command reads
 * (`npm run verify-raffle -- <url>`).
 */
export function raffleRecordUrl(id: number, origin: string = window.location.origin): string {
  return `${origin}/api/raffles/${id}/record`;
}
