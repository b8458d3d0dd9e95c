import { describe, expect, it } from 'vitest';
import en from './en.json';
import firstPage from './en.json?first-page';
import later from './en.json?later';
import { LATER_SECTIONS } from './split-texts';

describe('the English texts split for the first download', () => {
  it('puts every section of en.json in exactly one part', () => {
    expect({ ...firstPage, ...later }).toEqual(en);
    expect(Object.keys(firstPage).filter((section) => section in later)).toEqual([]);
  });

  it('leaves the later sections out of the first part', () => {
    expect(Object.keys(later).sort()).toEqual([...LATER_SECTIONS].sort());
  });

  it('keeps what the first page shows in the first part', () => {
    for (const section of [
      'app',
      'nav',
      'topbar',
      'footer',
      'cookie',
      'session',
      'screens',
      'errorPage',
      'tickets',
    ]) {
      expect(firstPage).toHaveProperty(section);
    }
  });
});
