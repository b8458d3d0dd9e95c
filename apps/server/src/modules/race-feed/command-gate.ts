/**
 * What every race command on the event socket (`join_lobby`, `toggle_ready`, `ping_update`)
 * passes before it runs (issue 23). First the member's budget: CONTROL_LIMITS.eventCommandsPerMember
 * per eventCommandWindowMs, all their event sockets together (the per-socket message limit times
 * five sockets is no member limit), counted on every instance with REDIS_URL like the other abuse
 * limits (scale-out/limit-stores.ts); every command counts, refused or not. Then the rule REST
 * applies to every call: an account whose registration is incomplete (terms not accepted, e.g.
 * made by a prize claim) may watch, not act — `assertRegistrationComplete`, the same function,
 * read on the member's row as it is now (the user cache), so accepting the terms applies at once.
 * Reading the state (`get_current_state`), `ping` and `auth` are not commands.
 */
import { ERROR_KEYS } from '@telerace/protocol';
import { DomainError } from '../../domain-error.js';
import { assertRegistrationComplete, unauthorized } from '../../http/authenticate.js';
import type { UserRow } from '../../kernel/users.repo.js';
import type { LimitWindow } from '../../limit-window.js';

export const tooManyCommands = (): DomainError =>
  new DomainError('rate_limited', 'Too many race commands: wait a moment.', ERROR_KEYS.tooManyRequests);

export class EventCommandGate {
  constructor(
    private readonly budget: LimitWindow<number>,
    private readonly members: { find(userId: number): Promise<UserRow | undefined> },
  ) {}

  /** Resolves when the member may run one more command; otherwise throws what the socket answers. */
  async admit(userId: number): Promise<void> {
    if (!(await this.budget.take(userId))) throw tooManyCommands();
    const member = await this.members.find(userId);
    if (!member) throw unauthorized();
    assertRegistrationComplete(member);
  }
}
