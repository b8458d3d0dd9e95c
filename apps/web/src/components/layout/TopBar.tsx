/** The fixed top bar: menu button (small screens), brand, theme, language and the session's links. */
import type { RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useAuth } from '../../features/auth/auth-context';
import { ThemeToggle } from '../../features/theme/ThemeToggle';
import { TicketBadge } from '../../features/tickets/TicketBadge';
import { cx } from '../../lib/cx';
import { displayName } from '../../lib/username';
import { buttonClasses, iconButtonClasses } from '../ui/button-styles';
import { LineIcon } from '../ui/Icon';
import { Avatar } from './Avatar';
import { LanguageSwitch } from './LanguageSwitch';
import { LogoMark } from './LogoMark';

export const SIDEBAR_ID = 'sidebar';

export interface TopBarProps {
  /** Absent when the screen has no sidebar (the control page). */
  menu?: { open: boolean; onToggle: () => void; buttonRef: RefObject<HTMLButtonElement | null> };
  /** Gives way on a phone held sideways (the control page: video and sticks need the height). */
  collapsible?: boolean;
}

function MenuIcon({ open }: { open: boolean }) {
  return (
    <LineIcon className="size-6">
      {open ? (
        <path strokeLinecap="round" d="M6 6l12 12M18 6 6 18" />
      ) : (
        <path strokeLinecap="round" d="M4 7h16M4 12h16M4 17h10" />
      )}
    </LineIcon>
  );
}

function LogoutIcon() {
  return (
    <LineIcon>
      <path
        strokeLinecap="round"
        strokeLinejoin="round"
        d="M15 4h3a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2h-3M10 17l-5-5 5-5M5 12h11"
      />
    </LineIcon>
  );
}

function SessionLinks() {
  const { t } = useTranslation();
  const { user, logout } = useAuth();

  if (!user) {
    return (
      <div className="flex items-center gap-1 sm:gap-2">
        <Link to="/signup" className={buttonClasses('secondary', 'bar')}>
          {t('topbar.signup')}
        </Link>
        <Link to="/login" className={buttonClasses('primary', 'bar')}>
          {t('topbar.login')}
        </Link>
      </div>
    );
  }

  const name = displayName(user.username);
  return (
    <div className="flex min-w-0 items-center gap-1 sm:gap-2">
      <TicketBadge />
      <Link
        to="/profile"
        className="flex min-w-0 items-center gap-2 rounded-full py-1 pr-1 pl-1 text-sm font-semibold text-fg no-underline hover:bg-surface-2 sm:pr-3"
      >
        <Avatar username={user.username} url={user.avatar_url} />
        <span className="max-w-40 truncate max-sm:sr-only lg:max-w-72">{t('topbar.greeting', { name })}</span>
      </Link>
      <button type="button" className={buttonClasses('ghost', 'bar')} onClick={() => void logout()}>
        <LogoutIcon />
        <span className="max-sm:sr-only">{t('topbar.logout')}</span>
      </button>
    </div>
  );
}

/**
 * Below these widths a signed-out top bar has no room for the brand next to the two session
 * links (French labels are longer); the sidebar's Home link still leads home.
 */
const BRAND_HIDDEN_SIGNED_OUT: Record<string, string> = {
  en: 'max-[339px]:hidden',
  fr: 'max-[409px]:hidden',
};

export function TopBar({ menu, collapsible = false }: TopBarProps) {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  return (
    <header
      className={cx(
        'fixed inset-x-0 top-0 z-40 border-b border-line bg-surface/90 backdrop-blur-md',
        collapsible && 'phone-landscape:hidden',
      )}
    >
      <div className="flex h-16 items-center gap-1.5 px-2 sm:gap-3 sm:px-4">
        {menu && (
          <button
            ref={menu.buttonRef}
            type="button"
            className={`${iconButtonClasses} md:hidden`}
            aria-expanded={menu.open}
            aria-controls={SIDEBAR_ID}
            aria-label={menu.open ? t('nav.closeMenu') : t('nav.openMenu')}
            onClick={menu.onToggle}
          >
            <MenuIcon open={menu.open} />
          </button>
        )}
        <Link
          to="/"
          aria-label={t('topbar.home')}
          className={cx(
            'flex shrink-0 items-center gap-2 rounded-lg p-1 text-fg no-underline',
            !user && BRAND_HIDDEN_SIGNED_OUT[i18n.resolvedLanguage ?? 'en'],
          )}
        >
          <LogoMark className="size-8" />
          <span className="hidden font-display text-xl font-black tracking-tight uppercase italic min-[420px]:inline">
            {t('app.name')}
          </span>
        </Link>
        <div className="ml-auto flex min-w-0 items-center gap-1 sm:gap-2">
          <ThemeToggle />
          <LanguageSwitch />
          <SessionLinks />
        </div>
      </div>
      <div className="racing-stripe h-0.5" aria-hidden="true" />
    </header>
  );
}
