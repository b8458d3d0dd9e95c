/** The admin calls on members and login history (spec §7 "Admin calls"). */
import { AdminLoginsResponse, AdminUsersResponse } from '@telerace/protocol';
import type { z } from 'zod';
import { authFetch } from '../../lib/auth-client';

export type AdminUsersPage = z.infer<typeof AdminUsersResponse>;
export type AdminLoginsPage = z.infer<typeof AdminLoginsResponse>;

export const ADMIN_USERS_KEY = ['admin', 'users'] as const;
export const ADMIN_LOGINS_KEY = ['admin', 'logins'] as const;

const pageQuery = (page: number, limit: number) => `page=${page}&limit=${limit}`;

export function fetchUsers(page: number, limit: number): Promise<AdminUsersPage> {
  return authFetch(`/admin/users?${pageQuery(page, limit)}`, {}, AdminUsersResponse);
}

export function fetchLogins(page: number, limit: number): Promise<AdminLoginsPage> {
  return authFetch(`/admin/logins?${pageQuery(page, limit)}`, {}, AdminLoginsResponse);
}

export async function setBanned(userId: number, ban: boolean): Promise<void> {
  await authFetch(`/admin/users/${userId}/ban`, { method: 'POST', json: { ban } });
}

export async function setAdmin(userId: number, makeAdmin: boolean): Promise<void> {
  await authFetch(`/admin/users/${userId}/toggle-admin`, { method: 'POST', json: { makeAdmin } });
}

/** `requestId` makes a double submit adjust once: a fresh one per submit, never per retry. */
export async function adjustTickets(userId: number, amount: number, requestId: string): Promise<void> {
  await authFetch(`/admin/users/${userId}/adjust-tickets`, { method: 'POST', json: { amount, requestId } });
}

export async function deleteUser(userId: number): Promise<void> {
  await authFetch(`/admin/users/${userId}`, { method: 'DELETE' });
}
