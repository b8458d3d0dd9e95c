/** The signed-in user as the web app needs it (a subset of the server's user; extra fields are kept). */
import { THEMES } from '@telerace/protocol';
import { z } from 'zod';

export const User = z.looseObject({
  id: z.number().int(),
  username: z.string(),
  email: z.string().nullable(),
  is_admin: z.boolean(),
  avatar_url: z.string().nullish(),
  // An unknown theme value must not sign the user out: it is simply ignored.
  preferred_theme: z.enum(THEMES).nullish().catch(null),
});
export type User = z.infer<typeof User>;

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
