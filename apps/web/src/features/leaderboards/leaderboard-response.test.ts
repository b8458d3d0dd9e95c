import { LeaderboardResponse } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { parseLeaderboardResponse } from './leaderboard-response';

const row = {
  user_id: 7,
  username: 'speedy#7',
  avatar_url: 'https://cdn.example/a.png',
  best_race_laps: 12,
  best_race_lap_time: 11_111,
  total_races: 3,
};
const withRow = (fields: Record<string, unknown>) => ({ data: [{ ...row, ...fields }], totalCount: 1 });

/** Bodies the server could send, valid or not; each is checked against the protocol's schema. */
const BODIES: [string, unknown][] = [
  ['a page of rows', { data: [row, { ...row, user_id: 8 }], totalCount: 40 }],
  ['an empty board', { data: [], totalCount: 0 }],
  ['nulls where allowed', withRow({ avatar_url: null, best_race_lap_time: null })],
  ['unknown fields', { data: [{ ...row, extra: 1 }], totalCount: 1, more: true }],
  ['a fractional lap time', withRow({ best_race_lap_time: 10.5 })],
  ['a lap count as a string', withRow({ best_race_laps: '12' })],
  ['a missing name', withRow({ username: undefined })],
  ['a number for the avatar', withRow({ avatar_url: 3 })],
  ['a missing race count', withRow({ total_races: undefined })],
  ['an unsafe integer', withRow({ user_id: 2 ** 60 })],
  ['not a number', withRow({ total_races: Number.NaN })],
  ['a row that is not an object', { data: [null], totalCount: 1 }],
  ['rows that are not a list', { data: {}, totalCount: 0 }],
  ['no total', { data: [] }],
  ['a fractional total', { data: [], totalCount: 1.5 }],
  ['null', null],
  ['an array', []],
  ['a string', 'board'],
];

describe('parseLeaderboardResponse', () => {
  it.each(BODIES)('answers as the protocol schema does for %s', (_name, body) => {
    const expected = LeaderboardResponse.safeParse(body);
    if (expected.success) {
      expect(parseLeaderboardResponse(body)).toEqual(expected.data);
    } else {
      expect(() => parseLeaderboardResponse(body)).toThrow(/leaderboard/);
    }
  });
});
