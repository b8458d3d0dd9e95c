import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HOME_PHOTO, preloadHomePhoto } from './home-photo';

const PUBLIC_DIR = join(import.meta.dirname, '../../public');

afterEach(() => {
  for (const link of document.head.querySelectorAll('link[rel="preload"]')) link.remove();
});

describe('the home page photo', () => {
  it('offers every width it lists, each a file of the build, the largest as the fallback', () => {
    const candidates = HOME_PHOTO.srcSet.split(',').map((entry) => entry.trim().split(' '));
    expect(candidates.map(([, width]) => width)).toEqual(['480w', '800w', `${HOME_PHOTO.width}w`]);
    for (const [url] of candidates) expect(existsSync(join(PUBLIC_DIR, url ?? ''))).toBe(true);
    expect(candidates.at(-1)?.[0]).toBe(HOME_PHOTO.src);
  });

  it('is preloaded with the same candidates and sizes as the page shows it, at high priority', () => {
    preloadHomePhoto();
    const link = document.head.querySelector<HTMLLinkElement>('link[rel="preload"][as="image"]');
    expect(link?.getAttribute('imagesrcset')).toBe(HOME_PHOTO.srcSet);
    expect(link?.getAttribute('imagesizes')).toBe(HOME_PHOTO.sizes);
    expect(link?.getAttribute('href')).toBe(HOME_PHOTO.src);
    expect(link?.getAttribute('fetchpriority')).toBe('high');
  });
});
