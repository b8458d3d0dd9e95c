/**
 * The screenshots of a changed screen for docs/screenshots (issue 41): at a 360 px phone, a phone
 * held sideways and a desktop, each in English and dark, and in French and light. Each is a fresh
 * browser context of that size and language; `show` brings the page to the screen. Saved as
 * `<name>-<en|fr>-<size>-<dark|light>.png` under the test's output (copied to docs/screenshots).
 */
import type { Browser, Page, TestInfo } from '@playwright/test';
import { acceptCookies, screenshot, switchTheme } from './support.js';

const SIZES = [
  { size: 'phone-360', use: { viewport: { width: 360, height: 780 }, isMobile: true, hasTouch: true } },
  { size: 'phone-sideways', use: { viewport: { width: 844, height: 390 }, isMobile: true, hasTouch: true } },
  { size: 'desktop', use: { viewport: { width: 1280, height: 800 } } },
] as const;

const LOOKS = [
  { language: 'en', locale: 'en-US', theme: 'dark' },
  { language: 'fr', locale: 'fr-FR', theme: 'light' },
] as const;

export type Language = (typeof LOOKS)[number]['language'];

export async function screensOf(
  browser: Browser,
  testInfo: TestInfo,
  name: string,
  baseURL: string,
  show: (page: Page, language: Language) => Promise<void>,
): Promise<void> {
  for (const { size, use } of SIZES) {
    for (const { language, locale, theme } of LOOKS) {
      const context = await browser.newContext({ ...use, baseURL, locale, reducedMotion: 'reduce' });
      try {
        await acceptCookies(context, baseURL);
        const page = await context.newPage();
        await show(page, language);
        await switchTheme(page, theme);
        await screenshot(page, testInfo, `${name}-${language}-${size}-${theme}`, { fullPage: false });
      } finally {
        await context.close();
      }
    }
  }
}
