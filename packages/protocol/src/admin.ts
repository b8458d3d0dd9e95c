/** Admin calls on members and login history (spec §7 "Admin calls"). */
import { z } from 'zod';
import { User } from './account.js';
import { ADMIN_DEFAULT_PAGE_SIZE, PAGE_SIZES } from './constants.js';
import { IdParams } from './ids.js';

const pageSize = z.coerce
  .number()
  .int()
  .refine((n) => (PAGE_SIZES as readonly number[]).includes(n), `must be one of ${PAGE_SIZES.join(', ')}`);

export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: pageSize.default(ADMIN_DEFAULT_PAGE_SIZE),
});
export type PageQuery = z.infer<typeof PageQuery>;

export const UserIdParams = IdParams;

export const AdminUser = User.extend({
  tickets: z.number().int(),
  /** Sum of admin adjustments. */
  ticket_adjustment: z.number().int(),
});
export type AdminUser = z.infer<typeof AdminUser>;

export const AdminUsersResponse = z.object({ users: z.array(AdminUser), totalCount: z.number().int() });

export const LoginRecord = z.object({
  id: z.number().int(),
  created_at: z.string(),
  username: z.string(),
  ip: z.string(),
});
export const AdminLoginsResponse = z.object({ logins: z.array(LoginRecord), totalCount: z.number().int() });

export const BanRequest = z.object({ ban: z.boolean() });
export const ToggleAdminRequest = z.object({ makeAdmin: z.boolean() });
export const AdjustTicketsRequest = z.object({
  amount: z
    .number()
    .int()
    .min(-10_000)
    .max(10_000)
    .refine((n) => n !== 0, 'must not be zero'),
  /** Optional idempotency key: the same key twice adjusts once. */
  requestId: z.string().min(8).max(100).optional(),
});
export const AdminUserResponse = z.object({ user: AdminUser });
