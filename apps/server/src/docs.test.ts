import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOCS, EnvSchema } from './config.js';

const readme = readFileSync(resolve(import.meta.dirname, '../../../README.md'), 'utf8');

describe('configuration documentation', () => {
  it('documents every variable the server reads', () => {
    expect(CONFIG_DOCS.map((d) => d.name).sort()).toEqual(Object.keys(EnvSchema.shape).sort());
  });

  it.each(CONFIG_DOCS.map((d) => d.name))('lists %s in the README configuration table', (name) => {
    // A table row whose first cell is the variable (Biome pads the cells).
    expect(readme).toMatch(new RegExp(`^\\|\\s*\`${name}\`\\s*\\|`, 'm'));
  });
});
