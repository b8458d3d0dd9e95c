/**
 * A table in a framed region that scrolls sideways when the table is wider than the screen. The
 * region is named by the table's label and reachable with Tab, so keyboard users can scroll it.
 */
import type { ReactNode } from 'react';
import { cx } from '../../lib/cx';

export function ScrollTable({
  label,
  captioned = true,
  className,
  children,
}: {
  /** Names the region, and the table through a caption only screen readers show. */
  label: string;
  /** False where the header row already says what the table is (content pages' tables). */
  captioned?: boolean;
  className?: string;
  /** The table's head and body. */
  children: ReactNode;
}) {
  return (
    <section
      aria-label={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a table wider than the screen must scroll from the keyboard.
      tabIndex={0}
      // Relative: a cell's screen-reader-only label (position: absolute) is then clipped here too,
      // rather than widening the page past a phone held sideways (issue 41).
      className={cx('relative overflow-x-auto rounded-xl border border-line', className)}
    >
      <table className="w-full border-collapse text-left text-sm">
        {captioned && <caption className="sr-only">{label}</caption>}
        {children}
      </table>
    </section>
  );
}

/** The header row of a content page's table; a number column's heading is right-aligned. */
export function ScrollTableHead({ columns }: { columns: readonly { label: string; numeric?: boolean }[] }) {
  return (
    <thead className="bg-surface-2">
      <tr>
        {columns.map((column) => (
          <th
            key={column.label}
            scope="col"
            className={cx('px-4 py-2.5 font-semibold', column.numeric && 'text-right')}
          >
            {column.label}
          </th>
        ))}
      </tr>
    </thead>
  );
}
