/** The admin race calls (spec §7 "/admin/race/*") and the race settings (PATCH /admin/settings, partial). */
import {
  AdminRaceResponse,
  AdminSettings,
  type AdminSettingsPatch,
  SyncLapCounterResponse,
} from '@telerace/protocol';
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

export function saveRaceSettings(patch: AdminSettingsPatch): Promise<AdminSettings> {
  return authFetch('/admin/settings', { method: 'PATCH', json: patch }, AdminSettings);
}
