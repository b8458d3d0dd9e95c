import { describe, expect, it } from 'vitest';
import { NewestCommand } from './newest-command.js';

describe('NewestCommand', () => {
  it('takes rising numbers and ignores repeated or older ones, whichever path they took', () => {
    const newest = new NewestCommand();
    expect([1, 2, 2, 1, 5, 3, 6].map((seq) => newest.take(seq))).toEqual([
      true,
      true,
      false,
      false,
      true,
      false,
      true,
    ]);
  });

  it('takes 0 first (the server numbers from 1, an older one from 0)', () => {
    expect(new NewestCommand().take(0)).toBe(true);
  });

  it('always takes a command without a number (a server older than the drive channel)', () => {
    const newest = new NewestCommand();
    newest.take(9);
    expect(newest.take(undefined)).toBe(true);
    expect(newest.take(9)).toBe(false);
  });

  it('starts over for a new socket, whose server numbers from the start again', () => {
    const newest = new NewestCommand();
    newest.take(500);
    newest.reset();
    expect(newest.take(1)).toBe(true);
  });
});
