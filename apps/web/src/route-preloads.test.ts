import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEADERBOARD_DEFAULT_PAGE_SIZE } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { BOARD_FIRST_PAGE_SIZE, DATA_PRELOADS } from './data-preloads';
import { pagesOfRouter, routePreloadsOf } from './route-preloads';

const router = readFileSync(join(import.meta.dirname, 'router.tsx'), 'utf8');

describe('route preloads', () => {
  it('finds every lazily loaded page of the route table by its first path segment', () => {
    const pages = pagesOfRouter(router);
    const bySegment = Object.fromEntries(pages.map((page) => [page.segment, page]));
    expect(bySegment.login).toEqual({ segment: 'login', file: 'Login', document: false });
    expect(bySegment.leaderboards?.file).toBe('Leaderboards');
    expect(bySegment['reset-password']?.file).toBe('ResetPassword');
    expect(bySegment.control?.file).toBe('Control');
    expect(bySegment.faq).toEqual({ segment: 'faq', file: 'Faq', document: true });
    // The landing page is in the first download: nothing to preload for it.
    expect(pages.some((page) => page.file === 'Home')).toBe(false);
    expect(pages.length).toBeGreaterThanOrEqual(15);
  });

  it('lists a page’s chunk, its imports (and theirs) and its texts, without what the first download has', () => {
    const chunk = (fileName: string, extra: Partial<Parameters<typeof routePreloadsOf>[1][number]> = {}) => ({
      type: 'chunk' as const,
      fileName,
      name: fileName.split('-')[0] ?? fileName,
      isEntry: false,
      facadeModuleId: null,
      imports: [],
      ...extra,
    });
    const chunks = [
      chunk('index-1.js', { isEntry: true, imports: ['app-1.js'] }),
      chunk('app-1.js', { imports: ['react-1.js'] }),
      chunk('react-1.js'),
      chunk('form-1.js', { imports: ['fields-1.js', 'app-1.js'] }),
      chunk('fields-1.js'),
      chunk('Login-1.js', {
        facadeModuleId: '/w/apps/web/src/routes/Login.tsx',
        imports: ['form-1.js', 'react-1.js'],
      }),
      chunk('Faq-1.js', { facadeModuleId: '/w/apps/web/src/routes/Faq.tsx' }),
      chunk('texts-later-en-1.js', { name: 'texts-later-en' }),
      // What `import('./en.json?later')` loads: a re-export of the grouped texts.
      chunk('en-1.js', {
        facadeModuleId: '/w/apps/web/src/i18n/en.json?later',
        imports: ['texts-later-en-1.js'],
      }),
      chunk('texts-documents-en-1.js', { name: 'texts-documents-en' }),
    ];
    const pages = [
      { segment: 'login', file: 'Login', document: false },
      { segment: 'faq', file: 'Faq', document: true },
      { segment: 'gone', file: 'Gone', document: false },
    ];
    expect(routePreloadsOf(pages, chunks)).toEqual({
      login: ['/Login-1.js', '/form-1.js', '/fields-1.js', '/en-1.js', '/texts-later-en-1.js'],
      faq: ['/Faq-1.js', '/en-1.js', '/texts-later-en-1.js', '/texts-documents-en-1.js'],
    });
  });

  it('preloads the first page of the all-time board, as the leaderboards page asks for it', () => {
    expect(BOARD_FIRST_PAGE_SIZE).toBe(LEADERBOARD_DEFAULT_PAGE_SIZE);
    expect(DATA_PRELOADS).toEqual({ leaderboards: ['/api/leaderboards/all-time?page=1&limit=10'] });
    // Only public answers of our own API: the server refuses anything else in a link.
    for (const urls of Object.values(DATA_PRELOADS)) {
      for (const url of urls) expect(url).toMatch(/^\/api\/[\w/-]+\?[\w=&]+$/);
    }
  });
});
