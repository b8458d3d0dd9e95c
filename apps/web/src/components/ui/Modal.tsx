/**
 * A modal dialog: rendered over the page in a portal, keeps keyboard focus inside (Tab wraps),
 * closes on Escape or a click on the backdrop, and gives focus back to what had it before.
 */
import { type ReactNode, type RefObject, useEffect, useId, useRef } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { cx } from '../../lib/cx';
import { useLatest } from '../../lib/use-latest';
import { iconButtonClasses } from './button-styles';
import { LineIcon } from './Icon';

const FOCUSABLE =
  'a[href], area[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), ' +
  'textarea:not([disabled]), iframe, [contenteditable="true"], [tabindex]:not([tabindex="-1"])';

export interface ModalProps {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  /** Optional text under the title, used as the dialog's description. */
  description?: ReactNode;
  /** Buttons shown at the bottom. */
  footer?: ReactNode;
  /** The element focused on open; by default the first focusable element. */
  initialFocusRef?: RefObject<HTMLElement | null>;
  size?: 'sm' | 'md' | 'lg';
  children?: ReactNode;
}

const widths = { sm: 'max-w-sm', md: 'max-w-lg', lg: 'max-w-2xl' } as const;

function focusableIn(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (el) => !el.hasAttribute('disabled') && el.getAttribute('aria-hidden') !== 'true',
  );
}

export function Modal(props: ModalProps) {
  if (!props.open) return null;
  return createPortal(<ModalDialog {...props} />, document.body);
}

function ModalDialog({
  onClose,
  title,
  description,
  footer,
  initialFocusRef,
  size = 'md',
  children,
}: ModalProps) {
  const { t } = useTranslation();
  const dialogRef = useRef<HTMLDivElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const onCloseRef = useLatest(onClose);

  useEffect(() => {
    const previouslyFocused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const dialog = dialogRef.current;
    if (dialog) {
      // The first control of the content, rather than the close button that comes before it.
      const firstControl = focusableIn(dialog).find((el) => el !== closeRef.current);
      const target = initialFocusRef?.current ?? firstControl ?? closeRef.current ?? dialog;
      target.focus();
    }
    const { overflow } = document.body.style;
    document.body.style.overflow = 'hidden';

    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.stopPropagation();
        onCloseRef.current();
        return;
      }
      if (event.key !== 'Tab' || !dialog) return;
      const items = focusableIn(dialog);
      const first = items[0];
      const last = items[items.length - 1];
      if (!first || !last) {
        event.preventDefault();
        dialog.focus();
        return;
      }
      const active = document.activeElement;
      if (event.shiftKey && (active === first || !dialog.contains(active))) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && (active === last || !dialog.contains(active))) {
        event.preventDefault();
        first.focus();
      }
    };
    document.addEventListener('keydown', onKeyDown, true);
    return () => {
      document.removeEventListener('keydown', onKeyDown, true);
      document.body.style.overflow = overflow;
      previouslyFocused?.focus();
    };
  }, [initialFocusRef]);

  return (
    <div className="fixed inset-0 z-50 flex items-end justify-center p-4 sm:items-center">
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the backdrop is a pointer shortcut; keyboard users press Escape or the close button. */}
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: see above, Escape is handled for the whole dialog. */}
      <div className="absolute inset-0 animate-fade-in bg-overlay backdrop-blur-sm" onClick={onClose} />
      <div
        ref={dialogRef}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={description ? descriptionId : undefined}
        tabIndex={-1}
        className={cx(
          'relative flex max-h-[90dvh] w-full animate-page-in flex-col overflow-hidden rounded-2xl border border-line bg-surface text-fg shadow-2xl',
          widths[size],
        )}
      >
        <div className="racing-stripe h-1 shrink-0" aria-hidden="true" />
        <div className="flex items-start justify-between gap-4 px-5 pt-4 sm:px-6">
          <div className="min-w-0 pt-1">
            <h2 id={titleId} className="font-display text-xl font-black tracking-tight italic">
              {title}
            </h2>
            {description && (
              <p id={descriptionId} className="mt-1 text-sm text-muted">
                {description}
              </p>
            )}
          </div>
          <button
            ref={closeRef}
            type="button"
            className={iconButtonClasses}
            aria-label={t('common.close')}
            onClick={onClose}
          >
            <LineIcon>
              <path strokeLinecap="round" d="M6 6l12 12M18 6 6 18" />
            </LineIcon>
          </button>
        </div>
        <div className="overflow-y-auto px-5 py-4 sm:px-6">{children}</div>
        {footer && (
          <div className="flex flex-wrap justify-end gap-2 border-t border-line bg-surface-2/60 px-5 py-3 sm:px-6">
            {footer}
          </div>
        )}
      </div>
    </div>
  );
}
