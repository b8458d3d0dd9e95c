import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../db/schema.js';
import { startTestApp } from '../../test/app.js';
import { assignUsername, baseUsername } from './usernames.js';

describe('assignUsername', () => {
  let t: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('keeps a free base, suffixes a taken one (case-insensitively) with #NNNN', async () => {
    const db = t.app.database.db;
    expect(await assignUsername(db, 'Speedy')).toBe('Speedy');
    await db.insert(users).values({ username: 'speedy' });
    const suffixed = await assignUsername(db, 'Speedy');
    expect(suffixed).toMatch(/^Speedy#\d{4}$/);
    await db.insert(users).values({ username: suffixed });
    expect(await assignUsername(db, 'Speedy')).not.toBe(suffixed);
  });
});

describe('baseUsername', () => {
  it.each([
    ['jane.doe', 'jane.doe'],
    ['a#b', 'ab'],
    ['  ', 'driver'],
    ['x'.repeat(40), 'x'.repeat(30)],
  ])('%j → %j', (raw, expected) => {
    expect(baseUsername(raw)).toBe(expected);
  });
});
