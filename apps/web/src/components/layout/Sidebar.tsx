/**
 * The left navigation. From `md` up it is always there; below, it is a drawer opened by the top
 * bar's menu button, closed by Escape, a click outside or a navigation.
 */
import { type ReactNode, type RefObject, useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { NavLink } from 'react-router';
import { useAuth } from '../../features/auth/auth-context';
import { cx } from '../../lib/cx';
import { LineIcon } from '../ui/Icon';
import { SIDEBAR_ID } from './TopBar';

type IconName = 'home' | 'trophy' | 'car' | 'gift' | 'gear' | 'shield' | 'help' | 'info';

const ICON_PATHS: Record<IconName, string> = {
  home: 'M3 11.5 12 4l9 7.5M5.5 9.5V20h13V9.5M10 20v-5h4v5',
  trophy: 'M8 4h8v5a4 4 0 0 1-8 0V4ZM8 6H4v1a4 4 0 0 0 4 4M16 6h4v1a4 4 0 0 1-4 4M12 13v4M8 20h8M9.5 17h5',
  car: 'M5 16.5h14M4 16.5V12l2-5h12l2 5v4.5M4 12h16M7.5 19.5a1.5 1.5 0 1 0 0-3M16.5 19.5a1.5 1.5 0 1 1 0-3',
  gift: 'M4 10h16v10H4zM3 7h18v3H3zM12 7v13M12 7c-2-4-6-3-5 0M12 7c2-4 6-3 5 0',
  gear: 'M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6ZM19 12l2-1-1-3-2.2.2-1.4-1.4L16.6 4l-3-1-1 2h-1.2l-1-2-3 1 .2 2.2-1.4 1.4L4 7.5 3 10.5l2 1v1.2l-2 1 1 3 2.2-.2 1.4 1.4L7.4 20l3 1 1-2h1.2l1 2 3-1-.2-2.2 1.4-1.4 2.2.2 1-3-2-1Z',
  shield: 'M12 3 4.5 6v5.5c0 4.5 3.2 8 7.5 9.5 4.3-1.5 7.5-5 7.5-9.5V6L12 3ZM9 12l2 2 4-4',
  help: 'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18ZM9.5 9.5a2.5 2.5 0 1 1 3.5 2.3c-.6.3-1 .9-1 1.6v.6M12 17h.01',
  info: 'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18ZM12 11v6M12 7.5h.01',
};

function NavIcon({ name }: { name: IconName }) {
  return (
    <LineIcon className="shrink-0" strokeWidth="1.8">
      <path strokeLinecap="round" strokeLinejoin="round" d={ICON_PATHS[name]} />
    </LineIcon>
  );
}

function SidebarLink({
  to,
  icon,
  end,
  children,
}: {
  to: string;
  icon: IconName;
  end?: boolean;
  children: ReactNode;
}) {
  return (
    <li>
      <NavLink
        to={to}
        end={end}
        className={({ isActive }) =>
          cx(
            'group relative flex items-center gap-3 rounded-lg px-3 py-2.5 text-sm font-semibold no-underline transition-colors',
            isActive
              ? 'bg-accent/12 text-fg before:absolute before:inset-y-1.5 before:left-0 before:w-1 before:rounded-full before:bg-accent'
              : 'text-muted hover:bg-surface-2 hover:text-fg',
          )
        }
      >
        {({ isActive }) => (
          <>
            <span className={cx(isActive ? 'text-accent' : 'text-muted group-hover:text-fg')}>
              <NavIcon name={icon} />
            </span>
            {children}
          </>
        )}
      </NavLink>
    </li>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div>
      <p className="px-3 pb-1.5 text-[0.7rem] font-bold tracking-[0.18em] text-muted uppercase">{title}</p>
      <ul className="space-y-0.5">{children}</ul>
    </div>
  );
}

export interface SidebarProps {
  open: boolean;
  onClose: () => void;
  /** Gets focus back when Escape closes the drawer. */
  menuButtonRef: RefObject<HTMLButtonElement | null>;
}

export function Sidebar({ open, onClose, menuButtonRef }: SidebarProps) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const navRef = useRef<HTMLElement>(null);

  useEffect(() => {
    if (!open) return;
    navRef.current?.querySelector<HTMLElement>('a')?.focus();
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      onClose();
      menuButtonRef.current?.focus();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [open, onClose, menuButtonRef]);

  const accountLinks = user && (
    <Section title={t('nav.sections.account')}>
      <SidebarLink to="/settings" icon="gear">
        {t('nav.settings')}
      </SidebarLink>
      {user.is_admin && (
        <SidebarLink to="/admin" icon="shield">
          {t('nav.admin')}
        </SidebarLink>
      )}
    </Section>
  );

  return (
    <>
      {open && (
        // biome-ignore lint/a11y/noStaticElementInteractions: a pointer shortcut; the menu button and Escape close it too.
        // biome-ignore lint/a11y/useKeyWithClickEvents: see above.
        <div className="fixed inset-0 top-16 z-30 animate-fade-in bg-overlay md:hidden" onClick={onClose} />
      )}
      <nav
        ref={navRef}
        id={SIDEBAR_ID}
        aria-label={t('nav.label')}
        className={cx(
          'fixed top-16 bottom-0 left-0 z-30 w-64 overflow-y-auto border-r border-line bg-surface px-3 py-5',
          open ? 'block animate-drawer-in shadow-2xl' : 'hidden',
          'md:block md:animate-none md:shadow-none',
        )}
      >
        <div className="space-y-6">
          <Section title={t('nav.sections.race')}>
            <SidebarLink to="/" icon="home" end>
              {t('nav.home')}
            </SidebarLink>
            <SidebarLink to="/leaderboards" icon="trophy">
              {t('nav.leaderboards')}
            </SidebarLink>
            {user && (
              <SidebarLink to="/car-selection" icon="car">
                {t('nav.carSelection')}
              </SidebarLink>
            )}
            {user && (
              <SidebarLink to="/claim" icon="gift">
                {t('nav.claim')}
              </SidebarLink>
            )}
          </Section>
          {accountLinks}
          <Section title={t('nav.sections.info')}>
            <SidebarLink to="/faq" icon="help">
              {t('nav.faq')}
            </SidebarLink>
            <SidebarLink to="/about" icon="info">
              {t('nav.about')}
            </SidebarLink>
          </Section>
        </div>
      </nav>
    </>
  );
}
