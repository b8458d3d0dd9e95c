/**
 * A viewer's or member's name as the bots write it in a chat (issue 39): plain text that no chat
 * turns into a link or a ping. A winner named `https://evil.example/claim` showed as a link just
 * before the real claim link.
 *
 * Links, every platform: Twitch and YouTube link a bare domain (`evil.com/claim`, `www.…`) and
 * Discord any `http(s)://…`, each on ASCII text. So in a name `://` becomes `:⁄⁄` (U+2044
 * FRACTION SLASH) and a full stop before a letter or a digit becomes `․` (U+2024 ONE DOT LEADER),
 * the look-alike full stops (`。．｡`, which browsers read as dots) too, with invisible characters
 * in between or not: the name reads the same, and no link is made of it. Chosen over a zero-width space (Discord links a URL up to the next
 * space whatever it holds, and a chat may strip one) and over wrapping names in code (every
 * winner's name would look like code).
 *
 * Discord's markdown too: its markup is escaped (a masked link `[x](y)`, `<…>`, emphasis, spoilers,
 * quotes) and a zero-width space follows each `@`, so `@everyone`, `@here` and `<@&role>` are text
 * even if a post allowed mentions (announcements allow none).
 */

/** `\p{Cf}`: invisible characters in between (a chat may strip them before it looks for links). */
const DOTS_BEFORE_A_LINK = /[.。．｡](?=\p{Cf}*[\p{L}\p{N}])/gu;
const ONE_DOT_LEADER = '\u2024';
const SCHEME_SEPARATOR = /:\p{Cf}*\/\p{Cf}*\//gu;
const FRACTION_SLASHES = ':\u2044\u2044';
const DISCORD_MARKUP = /[\\*_~`|>[\]<]/g;
const ZERO_WIDTH_SPACE = '\u200b';

/** A name with nothing a chat would link (every platform). */
export function unlinked(name: string): string {
  return name.replace(SCHEME_SEPARATOR, FRACTION_SLASHES).replace(DOTS_BEFORE_A_LINK, ONE_DOT_LEADER);
}

/** A name as plain text in Discord's markdown (never at a line's start): no emphasis, link, quote or mention. */
export function discordName(name: string): string {
  return name.replace(DISCORD_MARKUP, '\\$&').replaceAll('@', `@${ZERO_WIDTH_SPACE}`);
}
