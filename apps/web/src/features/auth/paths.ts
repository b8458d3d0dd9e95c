/** Where the auth screens may send the user after a login, and what they keep in session storage. */

/** sessionStorage key of the page to open after /complete-registration (spec §2 "Auth callback"). */
export const FINAL_DESTINATION_KEY = 'final_destination';

/** sessionStorage key of the control token the server handed over for a car. */
export function controlTokenKey(carId: string): string {
  return `controlToken:${carId}`;
}

/**
 * A path inside this site, or `fallback`. A destination comes from the URL, so anything that could
 * leave the site (`https://…`, `//host`, `/\host`) is refused.
 */
export function safeInternalPath(value: string | null | undefined, fallback = '/'): string {
  if (!value?.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback;
  return value;
}
