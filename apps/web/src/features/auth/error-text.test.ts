import { ERROR_KEYS } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { ApiError } from '../../lib/api';
import { apiErrorText, socketErrorText } from './error-text';

describe('error texts', () => {
  const t = i18n.getFixedT('en');

  it('translates a socket error by its key, in the reader’s language', async () => {
    const error = { text: 'Invalid message', errorKey: ERROR_KEYS.validation };
    expect(socketErrorText(t, i18n, error)).toBe('Some of the information sent is not valid.');
    await i18n.loadLanguages('fr');
    expect(socketErrorText(i18n.getFixedT('fr'), i18n, error)).not.toBe(
      'Some of the information sent is not valid.',
    );
  });

  it('falls back to the server’s text for a key this build does not know', () => {
    expect(socketErrorText(t, i18n, { text: 'Car busy', errorKey: 'errors.fromTheFuture' })).toBe('Car busy');
  });

  it('prefers the key, then a real server message, then the fallback for REST errors', () => {
    expect(apiErrorText(t, i18n, new ApiError(404, 'x', ERROR_KEYS.carNotFound), 'errors.unexpected')).toBe(
      'This car does not exist.',
    );
    expect(apiErrorText(t, i18n, new ApiError(409, 'Plain text'), 'errors.unexpected')).toBe('Plain text');
    expect(apiErrorText(t, i18n, new ApiError(500, 'boom'), 'errors.unexpected')).toBe(
      'An unexpected error occurred.',
    );
  });
});
