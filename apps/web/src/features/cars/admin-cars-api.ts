/** The admin car calls (spec §7 "Admin calls" on cars and settings; adding a car and rotating its secret are ours). */

import type { QueryClient } from '@tanstack/react-query';
import {
  type AdminCar,
  AdminCarResponse,
  AdminCarsResponse,
  AdminSettings,
  type AdminSettingsPatch,
  CreateCarResponse,
  GenerateCodeResponse,
  RotateSecretResponse,
} from '@telerace/protocol';
import type { z } from 'zod';
import { authFetch } from '../../lib/auth-client';
import { CARS_QUERY_KEY } from './cars-api';

export const ADMIN_CARS_KEY = ['admin', 'cars'] as const;
export const ADMIN_SETTINGS_KEY = ['admin', 'settings'] as const;

/** After an admin's write on a car: the admin's list and the members' list and statuses read again. */
export function invalidateCars(client: QueryClient): void {
  void client.invalidateQueries({ queryKey: ADMIN_CARS_KEY });
  void client.invalidateQueries({ queryKey: CARS_QUERY_KEY });
}

export type CarCommand = 'reboot' | 'shutdown';

export function fetchAdminCars(): Promise<AdminCar[]> {
  return authFetch('/admin/cars', {}, AdminCarsResponse);
}

export async function generateCode(carId: number): Promise<string> {
  return (await authFetch(`/admin/cars/${carId}/generate_code`, { method: 'POST' }, GenerateCodeResponse))
    .code;
}

export async function kickDriver(carId: number): Promise<void> {
  await authFetch(`/admin/cars/${carId}/kick`, { method: 'POST' });
}

export async function sendCommand(carId: number, command: CarCommand): Promise<void> {
  await authFetch(`/admin/cars/${carId}/command`, { method: 'POST', json: { command } });
}

export async function deleteCar(carId: number): Promise<void> {
  await authFetch(`/admin/cars/${carId}`, { method: 'DELETE' });
}

export async function rotateSecret(carId: number): Promise<string> {
  return (await authFetch(`/admin/cars/${carId}/rotate-secret`, { method: 'POST' }, RotateSecretResponse))
    .secret;
}

export function createCar(name: string, imageUrl: string | null): Promise<z.infer<typeof CreateCarResponse>> {
  return authFetch('/admin/cars', { method: 'POST', json: { name, image_url: imageUrl } }, CreateCarResponse);
}

export function fetchSettings(): Promise<AdminSettings> {
  return authFetch('/admin/settings', {}, AdminSettings);
}

/** A partial update: only the given settings change. */
export function saveSettings(settings: AdminSettingsPatch): Promise<AdminSettings> {
  return authFetch('/admin/settings', { method: 'PATCH', json: settings }, AdminSettings);
}

/** The car's id on the lap counter (transponder, pilot or `node:N`); null clears it. */
export async function saveLapCounterId(carId: number, lapCounterId: string | null): Promise<AdminCar> {
  return (
    await authFetch(
      `/admin/cars/${carId}/lap-counter-id`,
      { method: 'PUT', json: { lap_counter_id: lapCounterId } },
      AdminCarResponse,
    )
  ).car;
}
