import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, configError, defineSection, describeValue, parseSections, setting } from './define.js';
import { boolean, commaList, integerBetween } from './schemas.js';

const count = setting({ env: 'COUNT', schema: integerBetween(1, 10), default: '3', doc: 'How many.' });
const name = setting({ env: 'NAME', schema: z.string(), default: null, doc: 'Optional name.' });
const key = setting({
  env: 'KEY',
  schema: z.string().min(8, 'must be 8+ long'),
  default: null,
  doc: 'A key.',
  secret: true,
});
const flag = setting({ env: 'FLAG', schema: boolean(), default: 'false', doc: 'A switch.' });
const link = setting({ env: 'LINK', schema: z.string(), default: '/home', empty: 'none', doc: 'A link.' });
const tags = setting({ env: 'TAGS', schema: commaList(), default: 'a,b', empty: 'value', doc: 'Tags.' });
const phrase = setting({
  env: 'PHRASE',
  schema: z.string(),
  default: null,
  doc: 'Free text.',
  freeText: true,
});

const section = defineSection({ count, name, key, flag, link, tags, phrase });

function problemOf(env: Record<string, string>): string {
  try {
    parseSections([section], env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the environment was accepted');
}

describe('settings table', () => {
  it('parses the defaults of unset variables with the schema, and null without a default', () => {
    expect(parseSections([section], {})).toEqual({
      count: 3,
      name: null,
      key: null,
      flag: false,
      link: '/home',
      tags: ['a', 'b'],
      phrase: null,
    });
  });

  it('coerces the text of set variables to their types', () => {
    expect(
      parseSections([section], {
        COUNT: '7',
        NAME: 'x',
        KEY: 'k'.repeat(8),
        FLAG: 'YES',
        LINK: '/a',
        TAGS: 'c, d',
      }),
    ).toEqual({
      count: 7,
      name: 'x',
      key: 'k'.repeat(8),
      flag: true,
      link: '/a',
      tags: ['c', 'd'],
      phrase: null,
    });
  });

  it('reads an empty variable as unset, as none, or as a value, as each entry says', () => {
    expect(parseSections([section], { COUNT: '', LINK: '', TAGS: '' })).toMatchObject({
      count: 3,
      link: null,
      tags: [],
    });
  });

  it('names every wrong variable with its first problem, on one line', () => {
    expect(problemOf({ COUNT: '11', FLAG: 'maybe' })).toBe(
      'Invalid configuration: COUNT must be an integer between 1 and 10 (got "11"); FLAG must be true or false (got "maybe")',
    );
  });

  it('never echoes the value of a secret, only its length', () => {
    const message = problemOf({ KEY: 'hunter2' });
    expect(message).toBe('Invalid configuration: KEY must be 8+ long (got a value of 7 characters)');
    expect(message).not.toContain('hunter2');
    expect(describeValue(key, 'hunter2')).toBe('a value of 7 characters');
    expect(describeValue(name, 'visible')).toBe('"visible"');
  });

  it('refuses a comment pasted after a value, which any schema might accept, naming the variable', () => {
    const comment =
      'holds a comment ("#" after a blank), which an environment file keeps in the value: put comments on lines of their own';
    expect(
      problemOf({
        NAME: 'visible  # note',
        KEY: `${'k'.repeat(8)} #x`,
        LINK: '# set me',
        COUNT: '3\t# three',
      }),
    ).toBe(
      `Invalid configuration: COUNT ${comment} (got "3\\t# three"); NAME ${comment} (got "visible  # note"); KEY ${comment} (got a value of 11 characters); LINK ${comment} (got "# set me")`,
    );
    // A "#" without a blank before it is no comment: a URL's fragment, a channel, a token.
    expect(
      parseSections([section], { NAME: 'https://a.example/#top', LINK: '#chan', KEY: 'k#'.repeat(4) }),
    ).toMatchObject({
      name: 'https://a.example/#top',
      link: '#chan',
      key: 'k#'.repeat(4),
    });
    // Free text may hold one.
    expect(parseSections([section], { PHRASE: 'Race team #1' })).toMatchObject({ phrase: 'Race team #1' });
  });

  it("refuses the example file's placeholder in any setting, free text included", () => {
    expect(problemOf({ PHRASE: 'CHANGE_ME', KEY: 'CHANGE_ME-later' })).toBe(
      'Invalid configuration: KEY is still the example\'s placeholder CHANGE_ME: set a real value (got a value of 15 characters); PHRASE is still the example\'s placeholder CHANGE_ME: set a real value (got "CHANGE_ME")',
    );
  });

  it('reports the problems of every section built, each in the error and in its list', () => {
    const first = defineSection({ count }, () => {
      throw configError('COUNT does not go with the moon');
    });
    const second = defineSection({ name }, () => {
      throw configError('NAME is needed');
    });
    const error = (() => {
      try {
        parseSections([first, second], {});
      } catch (caught) {
        return caught as ConfigError;
      }
    })();
    expect(error?.message).toBe('Invalid configuration: COUNT does not go with the moon; NAME is needed');
    expect(error?.problems).toEqual(['COUNT does not go with the moon', 'NAME is needed']);
  });

  it('builds composite values after the parse, each section seeing what the earlier ones built', () => {
    const first = defineSection({ count });
    const second = defineSection({ name }, (values, earlier: { count: number }) => {
      if (values.name === null) throw configError('NAME is needed');
      return { label: values.name.repeat(earlier.count) };
    });
    expect(parseSections([first, second], { COUNT: '2', NAME: 'ab' })).toEqual({ count: 2, label: 'abab' });
    expect(() => parseSections([first, second], {})).toThrow(
      new ConfigError('Invalid configuration: NAME is needed'),
    );
  });

  it('reports wrong values before any section is built', () => {
    const refusing = defineSection({ name }, () => {
      throw configError('built anyway');
    });
    expect(() => parseSections([section, refusing], { COUNT: 'x' })).toThrow(/COUNT must be/);
  });

  it('refuses a default its own schema rejects, as a bug rather than a configuration error', () => {
    const broken = defineSection({
      count: setting({ env: 'BROKEN', schema: integerBetween(1, 2), default: '5', doc: 'Wrong default.' }),
    });
    expect(() => parseSections([broken], {})).toThrow(new Error('BROKEN: the default 5 is invalid'));
  });
});
