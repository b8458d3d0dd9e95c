/** The members' car calls (spec §7 "Main API": /cars*) and the per-car control token kept for the tab. */
import { Car, type CarConfig, CarsResponse, ConnectResponse } from '@telerace/protocol';
import type { z } from 'zod';
import { authFetch } from '../../lib/auth-client';
import { controlTokenKey } from '../auth/paths';

export const CARS_QUERY_KEY = ['cars'] as const;
export const carStatusQueryKey = (carId: string) => ['cars', carId, 'status'] as const;

export function fetchCars(): Promise<Car[]> {
  return authFetch('/cars', {}, CarsResponse);
}

export function fetchCarStatus(carId: string): Promise<Car> {
  return authFetch(`/cars/${encodeURIComponent(carId)}/status`, {}, Car);
}

export function connectToCar(carId: number, code: string): Promise<z.infer<typeof ConnectResponse>> {
  return authFetch(`/cars/${carId}/connect`, { method: 'POST', json: { code } }, ConnectResponse);
}

export async function saveCarConfig(carId: number, config: CarConfig): Promise<void> {
  await authFetch(`/admin/cars/${carId}/config`, { method: 'POST', json: config });
}

export function readControlToken(carId: string | number): string | null {
  try {
    return window.sessionStorage.getItem(controlTokenKey(String(carId)));
  } catch {
    return null;
  }
}

export function storeControlToken(carId: string | number, token: string): void {
  try {
    window.sessionStorage.setItem(controlTokenKey(String(carId)), token);
  } catch {
    // Storage can be blocked: the control page then says the code is needed again.
  }
}

export function clearControlToken(carId: string | number): void {
  try {
    window.sessionStorage.removeItem(controlTokenKey(String(carId)));
    window.sessionStorage.removeItem(videoPinKey(String(carId)));
  } catch {
    // Nothing stored, nothing to clear.
  }
}

const videoPinKey = (carId: string) => `videoPin:${carId}`;

/**
 * The car's video PIN from the connect response, kept with the control token: a reloaded control
 * page starts the video without waiting for the car's status (which brings the current PIN if
 * this one went stale).
 */
export function storeVideoPin(carId: string | number, pin: string | null | undefined): void {
  try {
    if (pin) window.sessionStorage.setItem(videoPinKey(String(carId)), pin);
  } catch {
    // Storage blocked: the status brings the PIN a moment later.
  }
}

export function readVideoPin(carId: string | number): string | null {
  try {
    return window.sessionStorage.getItem(videoPinKey(String(carId)));
  } catch {
    return null;
  }
}
