/** Accounts: sign-up, log-in, sessions, profile, password reset and tickets (spec §3, §5, §7). */
import { z } from 'zod';
import {
  BIO_MAX_LENGTH,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  THEMES,
  USERNAME_MAX_LENGTH,
} from './constants.js';

export const PLATFORMS = ['youtube', 'twitch', 'discord'] as const;
export type Platform = (typeof PLATFORMS)[number];

export const Email = z.string().trim().toLowerCase().max(254).email();

/**
 * The base name a member chooses (the `#suffix` is assigned by the server, never typed): 1–30
 * characters, no `#`, no control characters, no leading or trailing spaces.
 */
export const Username = z
  .string()
  .trim()
  .min(1)
  .max(USERNAME_MAX_LENGTH)
  .regex(/^[^#\p{Cc}]+$/u, 'must not contain # or control characters');

export const NewPassword = z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH);
/** A password being checked (not chosen): bounded so hashing cannot be abused. */
const GivenPassword = z.string().min(1).max(PASSWORD_MAX_LENGTH);

/** http(s) URL, or empty/null for none. */
export const AvatarUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => value === '' || /^https?:\/\//i.test(value), 'must be an http(s) URL')
  .refine((value) => value === '' || URL.canParse(value), 'must be a valid URL');

export const PreferredTheme = z.enum(THEMES);

/** What the API shows of a member, to that member and to admins. */
export const User = z.object({
  id: z.number().int(),
  username: z.string(),
  email: z.string().nullable(),
  bio: z.string(),
  avatar_url: z.string().nullable(),
  preferred_theme: PreferredTheme,
  youtube_id: z.string().nullable(),
  twitch_id: z.string().nullable(),
  discord_id: z.string().nullable(),
  has_password: z.boolean(),
  is_admin: z.boolean(),
  is_banned: z.boolean(),
  /** False after a social sign-up until the member agrees to the terms (/complete-registration). */
  registration_complete: z.boolean(),
  last_login_at: z.string().nullable(),
  created_at: z.string(),
});
export type User = z.infer<typeof User>;

export const UserResponse = z.object({ user: User });
export const MessageResponse = z.object({ message: z.string() });
/**
 * POST /logout's answer: the session cookie is cleared either way. 200 `recorded: true`: the
 * session is ended everywhere. 202 `recorded: false`: the database could not record it now; it is
 * written as soon as the database is back, and the session refreshes nothing meanwhile.
 */
export const LogoutResponse = z.object({ message: z.string(), recorded: z.boolean() });
export const UserMessageResponse = z.object({ user: User, message: z.string() });

export const SignupRequest = z.object({
  email: Email,
  username: Username,
  password: NewPassword,
  recaptchaToken: z.string().max(4096).default(''),
});
export type SignupRequest = z.infer<typeof SignupRequest>;

export const LoginRequest = z.object({
  email: z.string().trim().toLowerCase().max(254),
  password: GivenPassword,
  recaptchaToken: z.string().max(4096).default(''),
});
export type LoginRequest = z.infer<typeof LoginRequest>;

export const AccessTokenResponse = z.object({ accessToken: z.string() });

/**
 * `POST /api/auth/exchange`: the one-time code `/auth/callback` received, traded for a session by
 * the browser that started the sign-in flow (answer: AccessTokenResponse + the refresh cookie).
 */
export const ExchangeLoginCodeRequest = z.object({ code: z.string().min(1).max(128) });
export type ExchangeLoginCodeRequest = z.infer<typeof ExchangeLoginCodeRequest>;

export const UpdateDetailsRequest = z.object({
  username: Username,
  /** Sent only when it changed (spec §5). */
  email: Email.nullable().optional(),
  currentPassword: GivenPassword,
});
export type UpdateDetailsRequest = z.infer<typeof UpdateDetailsRequest>;

export const UpdateProfileRequest = z.object({
  bio: z.string().max(BIO_MAX_LENGTH),
  avatar_url: AvatarUrl.nullable(),
});
export type UpdateProfileRequest = z.infer<typeof UpdateProfileRequest>;

export const UpdateThemeRequest = z.object({ preferred_theme: PreferredTheme });

export const ChangePasswordRequest = z.object({
  /** Required when the account already has a password; absent for social-only accounts. */
  currentPassword: GivenPassword.optional(),
  newPassword: NewPassword,
});
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequest>;

/**
 * Deleting one's own account: the current password, required when the account has one (an account
 * without a password must have signed in within the last few minutes instead).
 */
export const DeleteAccountRequest = z.object({ currentPassword: GivenPassword.optional() });
export type DeleteAccountRequest = z.infer<typeof DeleteAccountRequest>;

export const DisconnectPlatformRequest = z.object({ platform: z.enum(PLATFORMS) });

export const ForgotPasswordRequest = z.object({ email: z.string().trim().toLowerCase().max(254) });
export const ResetPasswordRequest = z.object({ token: z.string().min(1).max(256), newPassword: NewPassword });

export const TicketsResponse = z.object({
  tickets: z.number().int(),
  breakdown: z.object({
    base: z.number().int(),
    linkedAccounts: z.number().int(),
    loyalty: z.number().int(),
    donations: z.number().int(),
    adjustments: z.number().int(),
  }),
});
export type TicketsResponse = z.infer<typeof TicketsResponse>;
