/** A member as the admin's members tab shows it: the member's fields plus their tickets. */
import type { AdminUser, TicketsResponse } from '@telerace/protocol';
import type { UserRow } from '../../kernel/users.repo.js';
import { presentUser } from '../users/user.presenter.js';

export function presentAdminUser(row: UserRow, tickets: TicketsResponse | undefined): AdminUser {
  return {
    ...presentUser(row),
    tickets: tickets?.tickets ?? 0,
    ticket_adjustment: tickets?.breakdown.adjustments ?? 0,
  };
}
