/**
 * A button opening a menu of actions that floats over the page (issue 41 point 10): rendered in a
 * portal at a fixed position taken from the button, so no scrolling container (a table's) clips
 * it; under the button, or over it when there is more room there; kept inside the window, and
 * following the button when the page or the table scrolls. Arrow keys, Home and End move between
 * the enabled items; Escape, Tab or a click elsewhere closes it (Escape and Tab give focus back to
 * the button). Choosing an item closes it.
 */
import {
  type KeyboardEvent,
  type ReactNode,
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
} from 'react';
import { createPortal } from 'react-dom';

export interface MenuItem {
  key: string;
  label: ReactNode;
  onSelect: () => void;
  disabled?: boolean;
  /** Why it is disabled, on hover. */
  title?: string;
  danger?: boolean;
}

interface Rect {
  top: number;
  bottom: number;
  right: number;
}
interface Size {
  width: number;
  height: number;
}
export interface MenuPlace {
  top: number;
  left: number;
  /** The menu scrolls inside itself beyond this (a window shorter than the menu). */
  maxHeight: number;
}

const GAP = 4;
const MARGIN = 8;

/**
 * Where the menu goes: under the button, right edges aligned; over it when it does not fit under;
 * when it fits on neither side, over part of the button, wholly inside the window, at the side with
 * more room (a phone held sideways); never past the window's edges.
 */
export function placeMenu(button: Rect, menu: Size, view: Size): MenuPlace {
  const room = view.height - 2 * MARGIN;
  const height = Math.min(menu.height, room);
  const below = view.height - MARGIN - (button.bottom + GAP);
  const above = button.top - GAP - MARGIN;
  let top: number;
  if (height <= below) top = button.bottom + GAP;
  else if (height <= above) top = button.top - GAP - height;
  else top = below >= above ? view.height - MARGIN - height : MARGIN;
  const left = Math.max(MARGIN, Math.min(button.right - menu.width, view.width - MARGIN - menu.width));
  return { top, left, maxHeight: room };
}

export function MenuButton({
  label,
  menuLabel,
  items,
  buttonClassName,
  itemClassName,
  testId,
}: {
  /** What the button shows. */
  label: ReactNode;
  /** The button's and the menu's accessible name. */
  menuLabel: string;
  items: readonly MenuItem[];
  buttonClassName: string;
  itemClassName: (item: MenuItem) => string;
  testId?: string;
}) {
  const [open, setOpen] = useState(false);
  const [place, setPlace] = useState<MenuPlace | null>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  /** Which item gets focus as the menu opens. */
  const focusOnOpen = useRef<'first' | 'last'>('first');
  const menuId = useId();

  const close = useCallback((refocus: boolean) => {
    setOpen(false);
    setPlace(null);
    if (refocus) buttonRef.current?.focus();
  }, []);

  const measure = useCallback(() => {
    const button = buttonRef.current;
    const menu = menuRef.current;
    if (!button || !menu) return;
    setPlace(
      placeMenu(
        button.getBoundingClientRect(),
        { width: menu.offsetWidth, height: menu.scrollHeight },
        { width: document.documentElement.clientWidth, height: window.innerHeight },
      ),
    );
  }, []);

  // Placed before the first paint, then kept beside the button.
  useLayoutEffect(() => {
    if (!open) return;
    measure();
    const enabled = enabledItems(menuRef.current);
    (focusOnOpen.current === 'last' ? enabled.at(-1) : enabled[0])?.focus({ preventScroll: true });
    // Capture: a scroll of any container (the table's) moves the button too.
    window.addEventListener('scroll', measure, true);
    window.addEventListener('resize', measure);
    return () => {
      window.removeEventListener('scroll', measure, true);
      window.removeEventListener('resize', measure);
    };
  }, [open, measure]);

  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      if (menuRef.current?.contains(target) || buttonRef.current?.contains(target)) return;
      close(false);
    };
    document.addEventListener('pointerdown', onPointerDown, true);
    return () => document.removeEventListener('pointerdown', onPointerDown, true);
  }, [open, close]);

  const openWith = (focus: 'first' | 'last') => {
    focusOnOpen.current = focus;
    setOpen(true);
  };

  const onMenuKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const enabled = enabledItems(menuRef.current);
    const at = enabled.indexOf(document.activeElement as HTMLButtonElement);
    const moveTo = (index: number) => {
      event.preventDefault();
      enabled[(index + enabled.length) % enabled.length]?.focus();
    };
    switch (event.key) {
      case 'ArrowDown':
        return moveTo(at + 1);
      case 'ArrowUp':
        return moveTo(at - 1);
      case 'Home':
        return moveTo(0);
      case 'End':
        return moveTo(enabled.length - 1);
      case 'Escape':
        event.preventDefault();
        event.stopPropagation();
        return close(true);
      case 'Tab':
        // Focus back on the button first: Tab then goes on from there, as if the menu were in place.
        return close(true);
      default:
        return;
    }
  };

  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        className={buttonClassName}
        aria-label={menuLabel}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        data-testid={testId}
        onClick={() => (open ? close(false) : openWith('first'))}
        onKeyDown={(event) => {
          if (event.key === 'Escape' && open) {
            event.preventDefault();
            close(true);
          }
          if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
          event.preventDefault();
          openWith(event.key === 'ArrowDown' ? 'first' : 'last');
        }}
      >
        {label}
      </button>
      {open &&
        createPortal(
          <div
            ref={menuRef}
            id={menuId}
            role="menu"
            aria-label={menuLabel}
            tabIndex={-1}
            onKeyDown={onMenuKeyDown}
            // Out of sight for the one layout pass before it is placed (visible, so it can take focus).
            style={place ?? { top: -10_000, left: 0 }}
            className="fixed z-45 grid min-w-40 gap-1 overflow-y-auto overscroll-contain rounded-xl border border-line bg-surface p-2 shadow-lg"
          >
            {items.map((item) => (
              <button
                key={item.key}
                type="button"
                role="menuitem"
                tabIndex={-1}
                disabled={item.disabled}
                title={item.title}
                className={itemClassName(item)}
                onClick={() => {
                  close(true);
                  item.onSelect();
                }}
              >
                {item.label}
              </button>
            ))}
          </div>,
          document.body,
        )}
    </>
  );
}

function enabledItems(menu: HTMLElement | null): HTMLButtonElement[] {
  return menu ? Array.from(menu.querySelectorAll<HTMLButtonElement>('[role="menuitem"]:not(:disabled)')) : [];
}
