/**
 * The keys that reach `t()` as plain strings at run time, where the types cannot follow them: the
 * server's errorKeys (ERROR_KEYS, read from an answer or a socket message) and the session messages
 * /login reads back from the navigation state. Every other key is checked by `npm run typecheck`
 * (i18next.d.ts).
 */
import { ERROR_KEYS } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { SESSION_MESSAGES } from '../features/auth/AuthProvider';
import i18n, { type TranslationKey } from '.';

// `satisfies`: each is a key of the English texts for the types too.
const RUNTIME_KEYS = [
  ...Object.values(ERROR_KEYS),
  ...Object.values(SESSION_MESSAGES),
] satisfies TranslationKey[];

describe.each(['en', 'fr'])('the %s texts', (language) => {
  it('have a text for every errorKey the server sends and every session message', () => {
    // getResource reads this language only: no fallback to English.
    const missing = RUNTIME_KEYS.filter(
      (key) => typeof i18n.getResource(language, 'translation', key) !== 'string',
    );
    expect(missing).toEqual([]);
  });
});
