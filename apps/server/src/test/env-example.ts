/**
 * Test support: deploy/telerace.env.example, and the same file with every CHANGE_ME replaced as an
 * operator would replace it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PLACEHOLDER } from '../config/define.js';

export const ENV_EXAMPLE_PATH = resolve(import.meta.dirname, '../../../../deploy/telerace.env.example');

/** What replaces CHANGE_ME in each variable's line. */
export const EXAMPLE_FILL: Record<string, string> = {
  DATABASE_URL: 'db-password-sample',
  PUBLIC_URL: 'telerace',
  JWT_SECRET: 'jwt-secret-sample-0123456789-abcdefghijklmnopqrstuvwxyz',
  ADMIN_EMAIL: 'admin',
  ADMIN_PASSWORD: 'admin password sample',
  JANUS_ADMIN_KEY: 'janus-admin-key-sample',
  JANUS_RTP_HOST: '203.0.113.10',
  TURN_URLS: 'turn',
  TURN_SECRET: 'turn-secret-sample',
};

export const readEnvExample = (): string => readFileSync(ENV_EXAMPLE_PATH, 'utf8');

/** The example with its placeholders filled; throws on a placeholder EXAMPLE_FILL does not know. */
export function filledEnvExample(): string {
  return readEnvExample()
    .split('\n')
    .map((line) => {
      if (!line.includes(PLACEHOLDER) || line.startsWith('#')) return line;
      const name = line.slice(0, line.indexOf('='));
      const fill = EXAMPLE_FILL[name];
      if (fill === undefined)
        throw new Error(`deploy/telerace.env.example: no fill for ${name}'s placeholder`);
      return line.replaceAll(PLACEHOLDER, fill);
    })
    .join('\n');
}
