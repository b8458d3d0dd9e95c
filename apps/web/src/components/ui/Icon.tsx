import type { ReactNode } from 'react';
import { cx } from '../../lib/cx';

/**
 * A decorative 24×24 line icon drawn with the current text colour; the paths are the children.
 * Icons never carry meaning alone: the control they sit in has a label.
 */
export function LineIcon({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <svg
      viewBox="0 0 24 24"
      className={cx('size-5', className)}
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      aria-hidden="true"
      focusable="false"
    >
      {children}
    </svg>
  );
}
