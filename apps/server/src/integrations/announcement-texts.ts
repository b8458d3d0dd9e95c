/**
 * What the bots announce in chat (docs/integrations.md "Announcements"), in the configured
 * language, within a platform's message length: a raffle opened, its winners, a race's podium.
 * Pure: the chat announcer builds the facts, each platform asks for its length and markup. A
 * name never becomes a link (chat-names.ts): a winner named like a URL sat just before the claim
 * link.
 *
 * Cutting, when a text is too long: winners are named in the order they were drawn and the rest
 * counted ("Ana, Bo and 18 more"); then names are shortened ("Anastasia_the_…"); the claim link
 * and the minutes are never cut (a last-resort cut of the whole text is only for an absurd
 * PUBLIC_URL).
 */
import { unlinked } from './chat-names.js';
import type { ChatLanguage } from './chat-replies.js';

export interface PodiumPlace {
  position: number;
  name: string;
  laps: number;
  bestLapMs: number | null;
}

export type ChatAnnouncement =
  | { kind: 'raffle_opened'; joinCommand: string; winners: number }
  | { kind: 'raffle_winners'; names: readonly string[]; claimUrl: string; claimMinutes: number }
  | { kind: 'race_podium'; podium: readonly PodiumPlace[] };

export interface AnnouncementFormat {
  /** The platform's longest message, in UTF-16 units (never fewer characters than the platform counts). */
  maxLength: number;
  /** Escapes what the platform's markup would read in a name (Discord's markdown); links are broken on every platform. */
  escapeName?: (name: string) => string;
}

type Plural = { one: string; other: string };

/** `one`: the count is grammatically singular in the language (Intl.PluralRules). */
interface Texts {
  raffleOpened(command: string, winners: number, one: boolean): string;
  /** The winners' list, the claim link and the minutes ("45 minutes"); French says tu to one, vous to several. */
  raffleWinners(list: string, one: boolean, url: string, minutes: string): string;
  more(list: string, count: number, one: boolean): string;
  podium(places: string): string;
  place(position: number, name: string, laps: string, best: string | null): string;
  lap: Plural;
  minute: Plural;
}

const TEXTS: Record<ChatLanguage, Texts> = {
  en: {
    raffleOpened: (command, winners, one) =>
      `A raffle is open! Type ${command} to enter: ${winners} ${one ? 'winner' : 'winners'} will drive in the next race.`,
    raffleWinners: (list, one, url, minutes) =>
      `Raffle ${one ? 'winner' : 'winners'}: ${list}! Claim your prize at ${url} within ${minutes} by signing in with the account that won.`,
    more: (list, count) => `${list} and ${count} more`,
    podium: (places) => `Race over! ${places}`,
    place: (position, name, laps, best) => `${position}. ${name}: ${laps}${best ? `, best ${best} s` : ''}`,
    lap: { one: 'lap', other: 'laps' },
    minute: { one: 'minute', other: 'minutes' },
  },
  fr: {
    raffleOpened: (command, winners, one) =>
      `Un tirage est ouvert ! Tape ${command} pour participer : ${winners} ${one ? 'gagnant pilotera' : 'gagnants piloteront'} dans la prochaine course.`,
    raffleWinners: (list, one, url, minutes) =>
      one
        ? `Gagnant du tirage : ${list} ! Réclame ton prix sur ${url} d'ici ${minutes} en te connectant avec le compte gagnant.`
        : `Gagnants du tirage : ${list} ! Réclamez votre prix sur ${url} d'ici ${minutes} en vous connectant avec le compte gagnant.`,
    more: (list, count, one) => `${list} et ${count} ${one ? 'autre' : 'autres'}`,
    podium: (places) => `Course terminée ! ${places}`,
    place: (position, name, laps, best) =>
      `${position}. ${name} : ${laps}${best ? `, meilleur tour ${best} s` : ''}`,
    lap: { one: 'tour', other: 'tours' },
    minute: { one: 'minute', other: 'minutes' },
  },
};

/** How short names may become, longest first, before the whole text is cut. */
const NAME_LENGTHS = [Number.POSITIVE_INFINITY, 24, 16, 10, 6];

export function announcementText(
  language: ChatLanguage,
  announcement: ChatAnnouncement,
  format: AnnouncementFormat,
): string {
  const texts = TEXTS[language];
  const one = (n: number) => new Intl.PluralRules(language).select(n) === 'one';
  const count = (n: number, word: Plural) => `${n} ${one(n) ? word.one : word.other}`;
  const name = (raw: string, maxLength: number) =>
    (format.escapeName ?? String)(shorten(unlinked(plain(raw)), maxLength));

  let candidates: Iterable<string>;
  switch (announcement.kind) {
    case 'raffle_opened': {
      const { joinCommand, winners } = announcement;
      candidates = [texts.raffleOpened(joinCommand, winners, one(winners))];
      break;
    }
    case 'raffle_winners': {
      const { names, claimUrl, claimMinutes } = announcement;
      const minutes = count(claimMinutes, texts.minute);
      candidates = (function* () {
        for (const nameLength of NAME_LENGTHS) {
          for (let shown = names.length; shown >= 1; shown -= 1) {
            const listed = names
              .slice(0, shown)
              .map((raw) => name(raw, nameLength))
              .join(', ');
            const hidden = names.length - shown;
            const list = hidden > 0 ? texts.more(listed, hidden, one(hidden)) : listed;
            yield texts.raffleWinners(list, one(names.length), claimUrl, minutes);
          }
        }
      })();
      break;
    }
    case 'race_podium': {
      const formatLap = new Intl.NumberFormat(language, {
        minimumFractionDigits: 2,
        maximumFractionDigits: 2,
      });
      candidates = NAME_LENGTHS.map((nameLength) =>
        texts.podium(
          announcement.podium
            .map((place) =>
              texts.place(
                place.position,
                name(place.name, nameLength),
                count(place.laps, texts.lap),
                place.bestLapMs === null ? null : formatLap.format(Math.round(place.bestLapMs / 10) / 100),
              ),
            )
            .join(' · '),
        ),
      );
      break;
    }
  }
  let last = '';
  for (const text of candidates) {
    if (text.length <= format.maxLength) return text;
    last = text;
  }
  return shorten(last, format.maxLength);
}

/** A name as one line of text: control characters and line breaks become spaces. */
function plain(raw: string): string {
  const text = raw
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text === '' ? '?' : text;
}

/** At most `maxLength` UTF-16 units, cut between characters, with "…" when cut. */
function shorten(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let cut = '';
  for (const char of text) {
    if (cut.length + char.length + 1 > maxLength) break;
    cut += char;
  }
  return `${cut}…`;
}
