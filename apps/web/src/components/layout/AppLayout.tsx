/**
 * The page frame of every screen: skip link, top bar, sidebar (hidden on /control/…, where the
 * top bar also gives way on a phone held sideways), the reload banner of an out-of-date page,
 * main content with a page transition, footer and cookie banner. Nothing but the session message
 * is shown while the session is being restored.
 */

import type { TFunction } from 'i18next';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, ScrollRestoration, useLocation, useMatches } from 'react-router';
import { useAuth } from '../../features/auth/auth-context';
import { SessionLoading } from '../../features/auth/SessionLoading';
import { CookieBanner } from '../../features/consent/CookieBanner';
import type { TranslationKey } from '../../i18n';
import { cx } from '../../lib/cx';
import { Footer } from './Footer';
import { OutdatedPageBanner } from './OutdatedPageBanner';
import { Sidebar } from './Sidebar';
import { TopBar } from './TopBar';

/** Route `handle` of the route table: the i18n key of the screen's title. */
export interface RouteHandle {
  titleKey: TranslationKey;
}

function isRouteHandle(handle: unknown): handle is RouteHandle {
  return (
    typeof handle === 'object' && handle !== null && typeof (handle as RouteHandle).titleKey === 'string'
  );
}

/** The tab's title of a screen, given the route matches: "Leaderboards · Telerace", or the app's name at home. */
export function documentTitle(t: TFunction, matches: readonly { handle: unknown }[]): string {
  const handle = matches.map((match) => match.handle).findLast(isRouteHandle);
  const appName = t('app.name');
  return handle && handle.titleKey !== 'screens.home' ? `${t(handle.titleKey)} · ${appName}` : appName;
}

/** Keeps the tab's title in step with the screen and the language. */
function useDocumentTitle() {
  const { t } = useTranslation();
  const title = documentTitle(t, useMatches());
  useEffect(() => {
    document.title = title;
  }, [title]);
}

export function hidesSidebar(pathname: string): boolean {
  return pathname.startsWith('/control/');
}

function Shell() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const [menuPath, setMenuPath] = useState(pathname);
  const menuButtonRef = useRef<HTMLButtonElement>(null);
  const withSidebar = !hidesSidebar(pathname);
  useDocumentTitle();

  // A navigation closes the drawer.
  if (menuPath !== pathname) {
    setMenuPath(pathname);
    setMenuOpen(false);
  }
  const closeMenu = useCallback(() => setMenuOpen(false), []);
  const toggleMenu = useCallback(() => setMenuOpen((open) => !open), []);

  return (
    <>
      <a
        href="#main"
        className="fixed top-3 left-3 z-50 -translate-y-24 rounded-lg bg-accent px-4 py-2 font-semibold text-accent-fg no-underline shadow-lg transition-transform focus:translate-y-0"
      >
        {t('skipLink')}
      </a>
      <TopBar
        menu={withSidebar ? { open: menuOpen, onToggle: toggleMenu, buttonRef: menuButtonRef } : undefined}
        collapsible={!withSidebar}
      />
      {withSidebar && <Sidebar open={menuOpen} onClose={closeMenu} menuButtonRef={menuButtonRef} />}
      <div className={cx('flex min-h-dvh flex-col pt-16', withSidebar ? 'md:pl-64' : 'phone-landscape:pt-0')}>
        <OutdatedPageBanner />
        {/* At least the viewport below the top bar: the footer starts below the fold, so a page
            whose content arrives after the first paint never pushes a visible footer down (CLS). */}
        <main id="main" tabIndex={-1} className="min-h-[calc(100dvh-4rem)] flex-1 focus:outline-none">
          <div
            key={pathname}
            className={cx(
              'animate-page-in px-4 py-8 sm:px-8 sm:py-10',
              // The control page on a phone held sideways: the video and sticks fill the screen.
              !withSidebar && 'phone-landscape:px-2 phone-landscape:py-2',
            )}
          >
            <Outlet />
          </div>
        </main>
        <Footer />
        <CookieBanner />
      </div>
      <ScrollRestoration />
    </>
  );
}

export function AppLayout() {
  const { loading } = useAuth();
  if (loading) return <SessionLoading />;
  return <Shell />;
}
