import type { HTMLAttributes } from 'react';
import { cx } from '../../lib/cx';

/** A raised surface with a border; the building block of every screen. */
export function Card({ className, ...rest }: HTMLAttributes<HTMLDivElement>) {
  return (
    <div className={cx('rounded-2xl border border-line bg-surface text-fg shadow-sm', className)} {...rest} />
  );
}
