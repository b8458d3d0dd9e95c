/**
 * Fixtures of the account screens (a member with a bio and a linked Twitch account, an admin), on
 * the web tests' one harness (src/test/app.tsx: real providers against a fake server).
 */
import type { AdminUser, User } from '@telerace/protocol';
import type { ReactNode } from 'react';
import { renderSignedIn as renderSignedInAs, type SignedInOptions } from '../../test/app';

export { callsTo, json, type Route, stubFetch } from '../../test/app';

export const member: User = {
  id: 12,
  username: 'speedy#12',
  email: 'speedy@example.com',
  bio: 'Fast on the straights.',
  avatar_url: null,
  preferred_theme: 'dark',
  youtube_id: null,
  twitch_id: 'tw-777',
  discord_id: null,
  has_password: true,
  is_admin: false,
  is_banned: false,
  registration_complete: true,
  last_login_at: '2026-11-25T21:00:00.000Z',
  created_at: '2026-11-01T12:00:00.000Z',
};

export const adminUser: User = {
  ...member,
  id: 1,
  username: 'marshal#1',
  email: 'marshal@example.com',
  is_admin: true,
};

export function asAdminUser(user: User, tickets = 100, ticket_adjustment = 0): AdminUser {
  return { ...user, tickets, ticket_adjustment };
}

/** The harness's `renderSignedIn`, signed in as this file's member by default. */
export function renderSignedIn(ui: ReactNode, user: User = member, options?: SignedInOptions) {
  return renderSignedInAs(ui, user, options);
}
