import { describe, expect, it } from 'vitest';
import { announcementText, type ChatAnnouncement } from './announcement-texts.js';

const CLAIM = 'https://race.example.test/claim';
const winners = (names: string[], claimMinutes = 30): ChatAnnouncement => ({
  kind: 'raffle_winners',
  names,
  claimUrl: CLAIM,
  claimMinutes,
});
const place = (position: number, name: string, laps: number, bestLapMs: number | null) => ({
  position,
  name,
  laps,
  bestLapMs,
});

describe('announcement texts', () => {
  it('say a raffle opened with the join command and the number of winners, in English and French', () => {
    const opened = (winnersCount: number): ChatAnnouncement => ({
      kind: 'raffle_opened',
      joinCommand: '!race',
      winners: winnersCount,
    });
    expect(announcementText('en', opened(1), { maxLength: 500 })).toBe(
      'A raffle is open! Type !race to enter: 1 winner will drive in the next race.',
    );
    expect(announcementText('fr', opened(3), { maxLength: 500 })).toBe(
      'Un tirage est ouvert ! Tape !race pour participer : 3 gagnants piloteront dans la prochaine course.',
    );
  });

  it('name every winner when they fit, else the first drawn and how many more', () => {
    expect(announcementText('en', winners(['Ana'], 1), { maxLength: 500 })).toBe(
      `Raffle winner: Ana! Claim your prize at ${CLAIM} within 1 minute by signing in with the account that won.`,
    );
    expect(announcementText('fr', winners(['Ana', 'Bo']), { maxLength: 500 })).toBe(
      `Gagnants du tirage : Ana, Bo ! Réclamez votre prix sur ${CLAIM} d'ici 30 minutes en vous connectant avec le compte gagnant.`,
    );
    const many = Array.from({ length: 20 }, (_, i) => `Viewer_with_a_long_name_${i}`);
    for (const maxLength of [200, 499]) {
      for (const language of ['en', 'fr'] as const) {
        const text = announcementText(language, winners(many), { maxLength });
        expect(text.length).toBeLessThanOrEqual(maxLength);
        expect(text).toContain(CLAIM);
        expect(text).toMatch(language === 'en' ? / and \d+ more!/ : / et \d+ autres !/);
      }
    }
    // One more winner than fits: "and 1 more", not a cut name.
    const text = announcementText('en', winners(many.slice(0, 6)), { maxLength: 200 });
    expect(text).toMatch(
      /^Raffle winners: (Viewer_with_a_long_name_\d, )*Viewer_with_a_long_name_\d and \d more!/,
    );
  });

  it('cut a name too long for the chat rather than the claim link', () => {
    const text = announcementText('fr', winners(['N'.repeat(64)]), { maxLength: 150 });
    expect(text.length).toBeLessThanOrEqual(150);
    expect(text).toContain('…');
    expect(text).toContain(`${CLAIM} d'ici 30 minutes`);
  });

  it('put the podium with laps and best lap, at most three, names cut to fit', () => {
    const podium: ChatAnnouncement = {
      kind: 'race_podium',
      podium: [place(1, 'ana', 12, 8_314), place(2, 'bo', 1, null), place(3, 'cy', 0, null)],
    };
    expect(announcementText('en', podium, { maxLength: 500 })).toBe(
      'Race over! 1. ana: 12 laps, best 8.31 s · 2. bo: 1 lap · 3. cy: 0 laps',
    );
    expect(announcementText('fr', podium, { maxLength: 500 })).toBe(
      'Course terminée ! 1. ana : 12 tours, meilleur tour 8,31 s · 2. bo : 1 tour · 3. cy : 0 tour',
    );
    const long = 'x'.repeat(40);
    const cut = announcementText(
      'fr',
      { kind: 'race_podium', podium: [1, 2, 3].map((n) => place(n, `${long}${n}`, 10, 12_345)) },
      { maxLength: 200 },
    );
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut).toMatch(/^Course terminée ! 1\. x+… : 10 tours, meilleur tour 12,35 s · 2\. x+… /);
  });

  it('make a name one line of plain text, escaped where the chat has markup', () => {
    const text = announcementText(
      'en',
      winners(['Evil\r\nPRIVMSG #x :hi', '  ', '[link](https://x.test) *b*']),
      {
        maxLength: 2_000,
        escapeName: (name) => name.replace(/[\\*_[\]]/g, '\\$&'),
      },
    );
    expect(text).not.toMatch(/[\r\n]/);
    expect(text).toContain(
      'Raffle winners: Evil PRIVMSG #x :hi, ?, \\[link\\](https:\u2044\u2044x\u2024test) \\*b\\*!',
    );
  });
});
