/** The auth session's state (spec §3 "Auth session"), built on the protocol's `User`. */
import { User } from '@telerace/protocol';

export type { User } from '@telerace/protocol';

/** `GET /api/me` answers `{ user }`; the bare user object is accepted too. */
export function parseMeResponse(body: unknown): User {
  const candidate = body && typeof body === 'object' && 'user' in body ? body.user : body;
  return User.parse(candidate);
}

export interface AuthState {
  accessToken: string | null;
  user: User | null;
  /** True until the session restore on page load has finished. */
  loading: boolean;
}
