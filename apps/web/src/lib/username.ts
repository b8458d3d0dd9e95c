/** How usernames are shown: the stored name may carry a `#id` suffix that the UI leaves out. */

/** The username without the part after the last `#` (the whole name if that would leave nothing). */
export function displayName(username: string): string {
  const hash = username.lastIndexOf('#');
  if (hash <= 0) return username;
  return username.slice(0, hash);
}

/** The first character of the displayed name, upper-cased, for an avatar placeholder. */
export function initial(username: string): string {
  const [first] = Array.from(displayName(username).trim());
  return (first ?? '?').toLocaleUpperCase();
}

/** The `#id` suffix the server adds to a username (with its `#`), or '' when the name has none. */
export function usernameSuffix(username: string): string {
  const hash = username.lastIndexOf('#');
  if (hash <= 0 || hash === username.length - 1) return '';
  return username.slice(hash);
}
