/** What a table's place shows while its rows load, or when there are none (admin tabs, leaderboards, race page). */
import type { ReactNode } from 'react';
import { ScrollTable } from '../ui/ScrollTable';
import { Spinner } from '../ui/Spinner';
import { columnClass, type TableColumn, TableHead } from './TableHead';
import { bodyCell } from './table-styles';

export function TableLoading() {
  return (
    <div className="flex justify-center py-10">
      <Spinner size="lg" className="text-accent" />
    </div>
  );
}

export function TableEmpty({ children }: { children: ReactNode }) {
  return (
    <p className="rounded-xl border border-dashed border-line px-4 py-10 text-center text-muted">
      {children}
    </p>
  );
}

/**
 * A paged table's place while its first page loads: the headings and `rows` empty rows of a real
 * row's height (a 2rem avatar or button and the cell padding), so the rows and the page controls
 * arriving move nothing on the screen (no layout shift). Inert: only the spinner over it is
 * announced, as in TableLoading.
 */
export function TableSkeleton({
  label,
  columns,
  rows,
}: {
  label: string;
  columns: readonly TableColumn[];
  rows: number;
}) {
  return (
    <div className="relative">
      <div inert>
        <ScrollTable label={label} captioned={false}>
          <TableHead columns={columns} />
          <tbody className="divide-y divide-line">
            {Array.from({ length: rows }, (_, row) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: placeholder rows, all alike and never reordered.
              <tr key={row}>
                {columns.map((column) => (
                  <td key={column.label} className={columnClass(column, bodyCell)}>
                    <span className="block h-8 rounded-md bg-surface-2/70" />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      </div>
      <div className="pointer-events-none absolute inset-x-0 top-10 flex justify-center py-10">
        <Spinner size="lg" className="text-accent" />
      </div>
    </div>
  );
}
