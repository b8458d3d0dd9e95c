/** The admin race calls (spec §7 "/admin/race/*"); the race settings are saved by SettingsForm. */
import { AdminRaceResponse, SyncLapCounterResponse } from '@telerace/protocol';
import { authFetch } from '../../lib/auth-client';

export const ADMIN_RACE_KEY = ['admin', 'race'] as const;

export function fetchAdminRace(): Promise<AdminRaceResponse> {
  return authFetch('/admin/race', {}, AdminRaceResponse);
}

export function startRace(): Promise<AdminRaceResponse> {
  return authFetch('/admin/race/start', { method: 'POST' }, AdminRaceResponse);
}

export function endRace(): Promise<AdminRaceResponse> {
  return authFetch('/admin/race/end', { method: 'POST' }, AdminRaceResponse);
}

/** How many drivers' names the lap counter took. */
export async function syncLapCounter(): Promise<number> {
  return (await authFetch('/admin/race/sync-lap-counter', { method: 'POST' }, SyncLapCounterResponse)).synced;
}
