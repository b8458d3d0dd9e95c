/**
 * Whether the caller may delete their account now. A stolen access token (or a moment at an
 * unlocked screen) must not be enough: the member types their password again, or, without a
 * password (social sign-up), must have signed in a few minutes ago — the session's start, not the
 * access token's, since tokens are refreshed silently.
 */
import { ERROR_KEYS } from '@telerace/protocol';
import { DomainError } from '../../domain-error.js';
import type { AccessTokenClaims } from '../../http/authenticate.js';
import type { UserRow } from '../../kernel/users.repo.js';
import { verifyPassword } from '../auth/passwords.js';

/** How recent a sign-in must be for a password-less account to delete itself. */
export const RECENT_SIGN_IN_MS = 5 * 60_000;

export async function assertDeletionConsent(
  /** When the caller's session began (sessions are the auth module's). */
  sessionStartedAt: (sessionId: string) => Promise<Date | undefined>,
  user: UserRow,
  claims: AccessTokenClaims,
  currentPassword: string | undefined,
  now: number = Date.now(),
): Promise<void> {
  if (user.passwordHash !== null) {
    if (currentPassword === undefined) {
      throw new DomainError('invalid', 'Current password is required', ERROR_KEYS.wrongCurrentPassword);
    }
    if (!(await verifyPassword(user.passwordHash, currentPassword))) {
      throw new DomainError('invalid', 'Current password is incorrect', ERROR_KEYS.wrongCurrentPassword);
    }
    return;
  }
  const startedAt = claims.sessionId ? await sessionStartedAt(claims.sessionId) : undefined;
  if (startedAt === undefined || now - startedAt.getTime() > RECENT_SIGN_IN_MS) {
    throw new DomainError(
      'forbidden',
      'Please sign in again, then delete your account within 5 minutes.',
      ERROR_KEYS.recentSignInRequired,
    );
  }
}
