/**
 * Names in the bots' announcements never become links or pings (issue 39), on every platform:
 * each name below is announced as a raffle winner next to the real claim link, and the only link
 * a chat could make of the text is the claim link. The link finders are stricter than the
 * platforms' own: Discord's (any `http(s)://`, a masked `[x](y)`, `<http…>`, a mention) and a
 * plain chat's (Twitch, YouTube: a scheme, `www.`, or any dotted word, as a bare domain).
 */
import { describe, expect, it } from 'vitest';
import { announcementText, type ChatAnnouncement } from './announcement-texts.js';
import { discordName, unlinked } from './chat-names.js';

const CLAIM = 'https://race.example.test/claim';

const HOSTILE_NAMES = [
  'https://evil.example/claim',
  'http://evil.example',
  'HTTPS://EVIL.EXAMPLE/CLAIM',
  'ftp://evil.example',
  'https:\u200b//evil\u200b.example',
  'www.evil.example',
  'evil.example/claim',
  'evil.com',
  'claim at evil.co.uk now',
  'evil.example:8443/claim',
  '1.2.3.4/claim',
  'evil。example/claim',
  'evil．example',
  'evil｡example',
  'evil.\u200bexample',
  'ana@evil.example',
  '[claim here](https://evil.example/claim)',
  '[claim here](evil.example)',
  '<https://evil.example/claim>',
  '@everyone',
  '@here claim now',
  '<@&123456789012345678>',
  '<@123456789012345678>',
  '`code` ||spoiler|| **bold** > quote',
];

const PLATFORMS = {
  discord: { maxLength: 2_000, escapeName: discordName },
  twitch: { maxLength: 499 },
  youtube: { maxLength: 200 },
} as const;

/** What Discord would make a link or a ping of (escaped markup is text). */
function discordLinks(text: string): string[] {
  const patterns = [
    /https?:\/\/[^\s<]+/gi,
    /(?<!\\)\[[^\]]*(?<!\\)\]\((?<!\\)[^)]*\)/g,
    /(?<!\\)<https?:[^>]*>/gi,
    /@(?:everyone|here)/g,
    /(?<!\\)<@[!&]?\d+>/g,
  ];
  return patterns.flatMap((pattern) => text.match(pattern) ?? []);
}

/** What a plain chat would make a link of: a scheme, `www.`, or a dotted word (a bare domain). */
function plainChatLinks(text: string): string[] {
  return text.match(/[a-z][a-z0-9+.-]*:\/\/\S+|www\.\S+|[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)+\S*/giu) ?? [];
}

const winner = (name: string): ChatAnnouncement => ({
  kind: 'raffle_winners',
  names: [name],
  claimUrl: CLAIM,
  claimMinutes: 30,
});

describe('names in announcements', () => {
  describe.each(Object.entries(PLATFORMS))('on %s', (platform, format) => {
    const links = platform === 'discord' ? discordLinks : plainChatLinks;

    it.each(HOSTILE_NAMES)('%j is no link: the claim link is the only one', (name) => {
      for (const language of ['en', 'fr'] as const) {
        const text = announcementText(language, winner(name), format);
        expect(links(text), text).toEqual([CLAIM]);
      }
    });

    it.each(HOSTILE_NAMES)('%j is no link on the podium either', (name) => {
      const text = announcementText(
        'en',
        { kind: 'race_podium', podium: [{ position: 1, name, laps: 3, bestLapMs: null }] },
        format,
      );
      expect(links(text), text).toEqual([]);
    });
  });

  it('read as they were: a look-alike dot and slashes, nothing added', () => {
    expect(unlinked('https://evil.example/claim')).toBe('https:\u2044\u2044evil\u2024example/claim');
    expect(unlinked('www.evil.example')).toBe('www\u2024evil\u2024example');
    expect(unlinked('evil。example')).toBe('evil\u2024example');
    // Only the invisible characters inside a `://` go.
    for (const name of HOSTILE_NAMES) expect(unlinked(name).length).toBeLessThanOrEqual(name.length);
  });

  it('keep what is no link as it is: a sentence, an ellipsis, initials, emoji', () => {
    for (const name of ['Ana', 'J. Doe', 'wait...', 'Zoé 🏎️', 'R2-D2', 'a_b', 'the end.'])
      expect(unlinked(name)).toBe(name);
    expect(unlinked('Mr.Bean')).toBe('Mr\u2024Bean');
  });

  it('on Discord: markdown escaped, and a zero-width space after every @', () => {
    expect(discordName('[x](y) *b* _i_ ~s~ `c` ||p|| > q <t>')).toBe(
      '\\[x\\](y) \\*b\\* \\_i\\_ \\~s\\~ \\`c\\` \\|\\|p\\|\\| \\> q \\<t\\>',
    );
    expect(discordName('@everyone and @here')).toBe('@\u200beveryone and @\u200bhere');
    expect(discordName('<@&123>')).toBe('\\<@\u200b&123\\>');
  });
});
