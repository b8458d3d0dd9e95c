import type { ReactNode } from 'react';
import { cx } from '../../lib/cx';

/**
 * A decorative 24×24 line icon drawn with the current text colour; the paths are the children.
 * Icons never carry meaning alone: the control they sit in has a label.
 */
export function LineIcon({
  children,
  className,
  strokeWidth = '2',
}: {
  children: ReactNode;
  /** Extra classes; a `size-*` here wins over the default `size-5` (it comes later in the CSS). */
  className?: string;
  strokeWidth?: string;
}) {
  return (
    <svg
      viewBox="0 0 24 24"
      className={cx('size-5', className)}
      fill="none"
      stroke="currentColor"
      strokeWidth={strokeWidth}
      aria-hidden="true"
      focusable="false"
    >
      {children}
    </svg>
  );
}
