/** Shared helpers for the browser tests: translations and screenshots kept as artifacts. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page, TestInfo } from '@playwright/test';

const I18N = join(dirname(fileURLToPath(import.meta.url)), '../../apps/web/src/i18n');

// biome-ignore lint/suspicious/noExplicitAny: translation files are free-form nested JSON
type Messages = any;

function load(lang: 'en' | 'fr'): Messages {
  const ui = JSON.parse(readFileSync(join(I18N, `${lang}.json`), 'utf8'));
  const pages = JSON.parse(readFileSync(join(I18N, 'pages', `${lang}.json`), 'utf8'));
  return { ...ui, pages };
}

/** The app's own texts, so the tests check what a reader sees in each language. */
export function translations(): { en: Messages; fr: Messages } {
  return { en: load('en'), fr: load('fr') };
}

/** A full-page screenshot saved under test-results and attached to the report. */
export async function screenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}
