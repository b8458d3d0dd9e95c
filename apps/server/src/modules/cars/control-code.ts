/**
 * Control codes: CONTROL_CODE_LENGTH characters drawn uniformly (crypto.randomInt) from
 * CONTROL_CODE_ALPHABET, which has no look-alike characters, so a code read aloud or off a
 * screen is typed right the first time.
 */
import { randomInt } from 'node:crypto';
import { CONTROL_CODE_ALPHABET, CONTROL_CODE_LENGTH } from '@telerace/protocol';

export function newControlCode(): string {
  let code = '';
  for (let i = 0; i < CONTROL_CODE_LENGTH; i += 1) {
    code += CONTROL_CODE_ALPHABET[randomInt(CONTROL_CODE_ALPHABET.length)];
  }
  return code;
}
