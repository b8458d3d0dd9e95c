import { describe, expect, it } from 'vitest';
import documentsEn from './documents/en.json';
import documentsFr from './documents/fr.json';
import en from './en.json';
import fr from './fr.json';
import pagesEn from './pages/en.json';
import pagesFr from './pages/fr.json';

type Tree = { [key: string]: unknown };

/** Every leaf of a translation file, by dotted path. */
function leaves(tree: unknown): Map<string, unknown> {
  const map = new Map<string, unknown>();
  const walk = (node: unknown, path: string) => {
    if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node as Tree)) walk(value, path ? `${path}.${key}` : key);
    } else {
      map.set(path, node);
    }
  };
  walk(tree, '');
  return map;
}

/** Keys in `a` that `b` lacks, sorted, so a failure lists them. */
function missingFrom(a: unknown, b: unknown): string[] {
  const inB = leaves(b);
  return [...leaves(a).keys()].filter((key) => !inB.has(key)).sort();
}

const variables = (text: unknown) =>
  typeof text === 'string' ? (text.match(/{{\s*\w+\s*}}/g) ?? []).sort() : [];
const tags = (text: unknown) => (typeof text === 'string' ? (text.match(/<\/?\w+>/g) ?? []).sort() : []);

describe.each([
  ['en.json', 'fr.json', en, fr],
  ['pages/en.json', 'pages/fr.json', pagesEn, pagesFr],
  ['documents/en.json', 'documents/fr.json', documentsEn, documentsFr],
])('%s and %s', (enName, frName, english, french) => {
  it(`has no key missing from ${frName}`, () => {
    expect(missingFrom(english, french)).toEqual([]);
  });

  it(`has no key missing from ${enName}`, () => {
    expect(missingFrom(french, english)).toEqual([]);
  });

  it('has a non-empty text for every key', () => {
    const empty = [...leaves(english), ...leaves(french)]
      .filter(([, value]) => typeof value === 'string' && value.trim() === '')
      .map(([key]) => key);
    expect(empty).toEqual([]);
  });

  it('uses the same {{variables}} and <tags> in both languages', () => {
    const frLeaves = leaves(french);
    const mismatched = [...leaves(english)]
      .filter(([key, value]) => {
        const other = frLeaves.get(key);
        return (
          JSON.stringify(variables(value)) !== JSON.stringify(variables(other)) ||
          JSON.stringify(tags(value)) !== JSON.stringify(tags(other))
        );
      })
      .map(([key]) => key);
    expect(mismatched).toEqual([]);
  });
});

describe('missingFrom', () => {
  it('lists the nested keys one file lacks', () => {
    expect(missingFrom({ a: { b: 'x', c: 'y' }, d: 'z' }, { a: { b: 'x' } })).toEqual(['a.c', 'd']);
  });
});
