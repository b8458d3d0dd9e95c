/** A table's column headings; a number column's heading is right-aligned over its digits. */
import { headCell } from './table-styles';

export interface TableColumn {
  label: string;
  numeric?: boolean;
}

export function TableHead({ columns, testId }: { columns: readonly TableColumn[]; testId?: string }) {
  return (
    <thead>
      <tr data-testid={testId}>
        {columns.map((column) => (
          <th key={column.label} scope="col" className={column.numeric ? `${headCell} text-right` : headCell}>
            {column.label}
          </th>
        ))}
      </tr>
    </thead>
  );
}
