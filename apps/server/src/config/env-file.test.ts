import { describe, expect, it } from 'vitest';
import { decodeEnvFile, parseEnvFile } from './env-file.js';

/**
 * Each case is what systemd 252 gave a unit with `EnvironmentFile=` of that text (seen under a
 * real systemd: deploy/systemd-units.once.test.ts runs a corpus of these through it).
 */
describe('parseEnvFile (systemd EnvironmentFile= rules)', () => {
  it.each([
    ['a plain value', 'A=plain\n', { A: 'plain' }],
    ['a comment after a value, kept in it', 'A=value # note\n', { A: 'value # note' }],
    ['a comment line', '# A=1\n; B=2\nC=3\n', { C: '3' }],
    ['blanks around the name and the value', '  A = spaced  \n', { A: 'spaced' }],
    ['quotes anywhere, removed', `A='single' tail\nB="a" "b"\n`, { A: 'singletail', B: 'ab' }],
    ['a "#" after a quoted part', 'A="quoted # x" # after\n', { A: 'quoted # x# after' }],
    ['a continued line', 'A=back\\\nslash\n', { A: 'backslash' }],
    ['escapes inside double quotes', 'A="\\$x \\n \\\\ \\" end"\n', { A: '$x \\n \\ " end' }],
    ['an escaped trailing blank', 'A=trail\\  \n', { A: 'trail ' }],
    ['an empty value', 'A=\nB=  \n', { A: '', B: '' }],
    ['a value over two lines in quotes', 'A="multi\nline"\n', { A: 'multi\nline' }],
    ['a ";" inside a value', 'A=a;b\n', { A: 'a;b' }],
    ['quotes inside a value, kept', 'A=x"y z"\nB="x"y\n', { A: 'x"y z"', B: 'xy' }],
    ['no final newline', 'A=1', { A: '1' }],
    ['Windows line ends', 'A=1\r\nB=2\r\n', { A: '1', B: '2' }],
    ['the last of a name set twice', 'A=1\nA=2\n', { A: '2' }],
    ['a "#" opening a value', 'A=#chan\nB= # note\n', { A: '#chan', B: '# note' }],
  ])('%s', (_name, text, values) => {
    expect(parseEnvFile(text).values).toEqual(values);
  });

  it('says what systemd drops or ignores, by line', () => {
    const { values, notes } = parseEnvFile(
      ['OK=1', 'NO_EQUALS', '1BAD=x', 'A-B=y', '# ends in \\', 'SWALLOWED=1', 'OK=2'].join('\n'),
    );
    expect(values).toEqual({ OK: '2' });
    expect(notes).toEqual([
      { line: 2, message: 'no "=" on this line: systemd ignores it' },
      { line: 3, message: '"1BAD" is not a valid variable name: systemd drops it' },
      { line: 4, message: '"A-B" is not a valid variable name: systemd drops it' },
      {
        line: 5,
        message:
          'a comment ending in "\\" also comments out the next line in systemd before 254 (Debian 12), not in later ones: end it with another character',
      },
      { line: 7, message: 'OK is set again: the last one counts' },
    ]);
  });

  it('reads UTF-8 only, and keeps a byte-order mark in the first name as systemd does', () => {
    expect(() => decodeEnvFile(new Uint8Array([0x41, 0x3d, 0xff]))).toThrow();
    const text = decodeEnvFile(new Uint8Array([0xef, 0xbb, 0xbf, 0x41, 0x3d, 0x31, 0x0a, 0x42, 0x3d, 0x32]));
    expect(parseEnvFile(text).values).toEqual({ B: '2' });
  });
});
