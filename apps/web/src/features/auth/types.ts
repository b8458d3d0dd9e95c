/** The auth session's state (spec §3 "Auth session"), built on the protocol's `User`. */
import type { User } from '@telerace/protocol';
import { parseWith } from '../../lib/schemas';

export type { User } from '@telerace/protocol';

/** `GET /api/me` answers `{ user }`. */
export async function parseMeResponse(body: unknown): Promise<User> {
  return (await parseWith('UserResponse', body)).user;
}

export interface AuthState {
  user: User | null;
  /** True until the session restore on page load has finished. */
  loading: boolean;
}
