/**
 * The open raffle in memory (open-raffle.ts) publishes exactly the list the draw would be drawn
 * from (draw-list.ts), whatever order entries, links, unlinks, bans and ticket totals come in
 * (each account's total read when it comes in, as open-raffle-keeper.ts does).
 */
import { describe, expect, it } from 'vitest';
import { drawList, type EnteredIdentity } from './draw-list.js';
import { identityKey, OpenRaffle } from './open-raffle.js';
import { presentEntries } from './raffles.presenter.js';

const at = (ms: number) => new Date(Date.UTC(2026, 10, 27, 12) + ms);

/** What the draw would make of the same identities, links and totals. */
function drawn(entered: EnteredIdentity[], tickets: Map<number, number>) {
  const list = drawList(entered, (userId) => tickets.get(userId));
  return presentEntries(
    list.entries.map(({ entry, weight }) => ({
      platform: entry.platform as 'twitch',
      platformUserId: entry.platformUserId,
      displayName: entry.displayName,
      weight,
    })),
  );
}

describe('OpenRaffle', () => {
  it('lists an account once (its first entry, its total), drops a banned one, and follows links', () => {
    const raffle = new OpenRaffle(1);
    raffle.add({
      platform: 'twitch',
      platformUserId: 't',
      displayName: 'T',
      enteredAt: at(0),
      account: { userId: 5, isBanned: false },
    });
    raffle.add({
      platform: 'discord',
      platformUserId: 'd',
      displayName: 'D',
      enteredAt: at(1),
      account: { userId: 5, isBanned: false },
    });
    raffle.add({
      platform: 'youtube',
      platformUserId: 'y',
      displayName: 'Y',
      enteredAt: at(2),
      account: null,
    });
    raffle.setTickets(5, 175);
    expect(raffle.entries().map((e) => `${e.platformUserId}:${e.weight}`)).toEqual(['t:175', 'y:100']);
    // The YouTube viewer links their channel to account 5: still one entry, the first.
    expect(raffle.relink(5, { identities: ['twitch:t', 'discord:d', 'youtube:y'], isBanned: false })).toBe(
      true,
    );
    expect(raffle.entries().map((e) => `${e.platformUserId}:${e.weight}`)).toEqual(['t:175']);
    // Twitch unlinked: Discord is the account's first entry now; the Twitch viewer weighs the base.
    raffle.relink(5, { identities: ['discord:d', 'youtube:y'], isBanned: false });
    expect(raffle.entries().map((e) => `${e.platformUserId}:${e.weight}`)).toEqual(['d:175', 't:100']);
    // Banned: none of its entries is drawn.
    raffle.relink(5, { identities: ['discord:d', 'youtube:y'], isBanned: true });
    expect(raffle.entries().map((e) => e.platformUserId)).toEqual(['t']);
    // Deleted: its identities are nobody's.
    expect(raffle.relink(5, null)).toBe(true);
    expect(raffle.entries().map((e) => `${e.platformUserId}:${e.weight}`)).toEqual([
      'd:100',
      't:100',
      'y:100',
    ]);
    expect(raffle.hasAccount(5)).toBe(false);
    expect(raffle.relink(5, null)).toBe(false);
  });

  it('agrees with the draw list on random histories', () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed % n;
    };
    const platforms = ['twitch', 'youtube', 'discord'];
    for (let round = 0; round < 200; round++) {
      const raffle = new OpenRaffle(1);
      const entered: EnteredIdentity[] = [];
      const links = new Map<string, { userId: number; isBanned: boolean }>();
      const tickets = new Map<number, number>();
      const accountOf = (key: string) => links.get(key) ?? null;
      for (let step = 0; step < 40; step++) {
        const action = random(4);
        if (action < 2) {
          const identity = { platform: platforms[random(3)] as string, platformUserId: `u${random(15)}` };
          if (raffle.has(identity)) continue;
          const entry = {
            ...identity,
            displayName: identity.platformUserId,
            enteredAt: at(random(10)),
            account: accountOf(identityKey(identity)),
          };
          raffle.add(entry);
          entered.push({ ...entry });
          // As the keeper does: a new account's total is read.
          if (entry.account) raffle.setTickets(entry.account.userId, tickets.get(entry.account.userId));
        } else if (action === 2) {
          // A member (1–4) links, unlinks, is banned or deleted: their identities now.
          const userId = 1 + random(4);
          for (const [key, account] of links) if (account.userId === userId) links.delete(key);
          const deleted = random(6) === 0;
          const isBanned = random(5) === 0;
          const identities = deleted
            ? []
            : Array.from({ length: random(3) }, () => `${platforms[random(3)]}:u${random(15)}`);
          for (const key of identities) links.set(key, { userId, isBanned });
          raffle.relink(userId, deleted ? null : { identities: [...new Set(identities)], isBanned });
          if (raffle.hasAccount(userId)) raffle.setTickets(userId, tickets.get(userId));
        } else {
          const userId = 1 + random(4);
          const total = random(500);
          tickets.set(userId, total);
          raffle.setTickets(userId, total);
        }
        for (const entry of entered) entry.account = accountOf(identityKey(entry));
        expect(raffle.entries()).toEqual(drawn(entered, tickets));
      }
    }
  });
});
