/** A table's column headings; a number column's heading is right-aligned over its digits. */
import { cx } from '../../lib/cx';
import { headCell, wideOnly } from './table-styles';

export interface TableColumn {
  label: string;
  numeric?: boolean;
  /** Left out on a phone: the row shows its value another way there (table-styles `wideOnly`). */
  wide?: boolean;
}

/** The classes of a column's cells: right-aligned for a number, left out on a phone when wide. */
export const columnClass = (column: TableColumn, cell: string): string =>
  cx(cell, column.numeric && 'text-right', column.wide && wideOnly);

export function TableHead({ columns, testId }: { columns: readonly TableColumn[]; testId?: string }) {
  return (
    <thead>
      <tr data-testid={testId}>
        {columns.map((column) => (
          <th key={column.label} scope="col" className={columnClass(column, headCell)}>
            {column.label}
          </th>
        ))}
      </tr>
    </thead>
  );
}
