import { describe, expect, it } from 'vitest';
import { displayName, initial, usernameSuffix } from './username';

describe('displayName', () => {
  it('leaves out the #id suffix', () => {
    expect(displayName('speedy#1234')).toBe('speedy');
  });

  it('cuts only at the last #', () => {
    expect(displayName('team#red#42')).toBe('team#red');
  });

  it('keeps a name without #', () => {
    expect(displayName('speedy')).toBe('speedy');
  });

  it('keeps a trailing # off', () => {
    expect(displayName('speedy#')).toBe('speedy');
  });

  it('keeps the whole name when nothing would be left before the #', () => {
    expect(displayName('#42')).toBe('#42');
  });
});

describe('initial', () => {
  it('is the first letter of the displayed name, upper-cased', () => {
    expect(initial('émile#7')).toBe('É');
  });

  it('handles characters outside the basic plane', () => {
    expect(initial('🏎️racer')).toBe('🏎');
  });
});

describe('usernameSuffix', () => {
  it('is the part from the last #', () => {
    expect(usernameSuffix('team#red#42')).toBe('#42');
  });

  it('is empty without a suffix, with a trailing # or when the name is only a suffix', () => {
    expect(usernameSuffix('speedy')).toBe('');
    expect(usernameSuffix('speedy#')).toBe('');
    expect(usernameSuffix('#42')).toBe('');
  });
});
