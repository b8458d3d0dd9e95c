/**
 * Business constants of the product (spec §9). Every screen and every server rule that
 * mentions one of these numbers reads it from here, so a text can never disagree with a rule.
 */

export const LANGUAGES = ['en', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

export const THEMES = ['dark', 'light'] as const;
export type Theme = (typeof THEMES)[number];
export const DEFAULT_THEME: Theme = 'dark';
/** localStorage key holding the chosen theme. */
export const THEME_STORAGE_KEY = 'theme';

export const COOKIE_CONSENT_COOKIE = 'telerace_cookie_consent';
/**
 * Set (value `1`, readable by the page, no secret) beside the HttpOnly refresh cookie and with
 * its lifetime; cleared with it. Without it the web app knows at once that there is no session to
 * restore and paints the page without waiting for a refresh round trip.
 */
export const SESSION_HINT_COOKIE = 'telerace_session';
export const COOKIE_CONSENT_DAYS = 150;
/** Cookie that remembers the chosen language (read by the language detector). */
export const LANGUAGE_COOKIE = 'i18next';

/** A link the deployment may configure: to our own files (a path starting with "/") or to another site over http(s). */
export const SITE_LINK_PATTERN = /^(\/(?!\/)|https?:\/\/)/;
/** The public config's support address: one @, no blanks (the server's setting is checked more strictly). */
export const SUPPORT_EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

export const MINIMUM_AGE = 13;
export const GOVERNING_LAW = 'Quebec';

export const USERNAME_MAX_LENGTH = 30;
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;
export const BIO_MAX_LENGTH = 500;

export const PAGE_SIZES = [10, 25, 50, 100] as const;
export type PageSize = (typeof PAGE_SIZES)[number];
export const ADMIN_DEFAULT_PAGE_SIZE: PageSize = 25;
export const LEADERBOARD_DEFAULT_PAGE_SIZE: PageSize = 10;

export const TICKETS = {
  /** Every account starts with this many tickets. */
  base: 100,
  /** Added for each linked social account (Twitch, YouTube, Discord). */
  perLinkedAccount: 25,
  /** Tickets per US dollar donated (bits, super chats, tips). */
  perDonatedDollar: 1,
  /** Donation tickets counted at most. */
  donationCap: 175,
  /**
   * Donation tickets expire this many days after the donation. The spec said "3 months" in one
   * place and "30 days" in another; we keep the longer one (see docs/decisions.md).
   */
  donationExpiryDays: 90,
  /** No account ever holds more than this. */
  totalCap: 500,
} as const;

/**
 * Loyalty tickets for active subscribers, by whole months subscribed. The highest tier among a
 * user's active subscriptions counts. After the last tier every further full year adds
 * `perExtraYear`.
 */
export const LOYALTY_TIERS = [
  { months: 0, tickets: 5 },
  { months: 1, tickets: 15 },
  { months: 3, tickets: 30 },
  { months: 6, tickets: 45 },
  { months: 9, tickets: 60 },
  { months: 12, tickets: 75 },
] as const;
export const LOYALTY_PER_EXTRA_YEAR = 10;

export const TIMERS_MS = {
  carListRefresh: 5_000,
  adminRefresh: 5_000,
  lobbyJoinTimeout: 5_000,
  serverBusyRetry: 2_000,
  latencyPing: 2_000,
  controlPing: 15_000,
  reconnectInitial: 100,
  reconnectMax: 8_000,
} as const;

export const PING_THRESHOLDS_MS = { green: 100, yellow: 250 } as const;

export const CAR_SESSION_DEFAULT_MINUTES = 10;
export const DEFAULT_RAFFLE_RACERS = 2;
export const MIN_RAFFLE_RACERS = 1;

export const CAR_CONFIG_LIMITS = {
  speedPercent: { min: 20, max: 100, default: 100 },
  trim: { min: -50, max: 50, default: 0 },
} as const;

export const GAMEPAD_DEAD_ZONE = 0.15;
