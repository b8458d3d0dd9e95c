/**
 * A paged table, the same for the admin tabs and the leaderboards: the headings over empty rows and
 * the page controls, hidden, while the first page loads (the place the page will take, so nothing
 * moves when it arrives), an error in the table's place when no page came, a warning over the last page shown when a
 * later fetch failed, the empty text, the table with its column headings, and the page controls
 * under it. The caller draws only a row.
 *
 * A page's rows are drawn from a deferred copy of the answer (`useDeferredValue`): react-query hands
 * an answer over synchronously, and the rows drawn in that same task were one long task on a phone
 * (issue 45 point 3); deferred, React draws them in slices between which the browser stays free.
 */
import { memo, type ReactNode, useDeferredValue } from 'react';
import { Alert } from '../ui/Alert';
import { ScrollTable } from '../ui/ScrollTable';
import { Pagination } from './Pagination';
import { type TableColumn, TableHead } from './TableHead';
import { TableEmpty, TableSkeleton } from './table-states';
import type { PagedQuery } from './use-paged-query';

export interface PagedTableTexts {
  /** The table's accessible name. */
  caption: string;
  /** What is paged, for the page controls' accessible name. */
  pager: string;
  loadFailed: string;
  empty: string;
}

export interface PagedTableProps<Page extends { totalCount: number }, Row> {
  paged: PagedQuery<Page>;
  /** The rows of a fetched page. */
  rowsOf: (page: Page) => readonly Row[];
  texts: PagedTableTexts;
  columns: readonly TableColumn[];
  headTestId?: string;
  /** Shown over the table, under a failed-fetch warning (a notice of the last action). */
  above?: ReactNode;
  /** Shown after the page controls (a dialog the rows open). */
  below?: ReactNode;
  /** One row (a keyed <tr>); `index` counts from the page's first row. */
  children: (row: Row, index: number) => ReactNode;
}

export function PagedTable<Page extends { totalCount: number }, Row>({
  paged: { query, page, pageSize, setPage, setPageSize },
  rowsOf,
  texts,
  columns,
  headTestId,
  above,
  below,
  children,
}: PagedTableProps<Page, Row>) {
  const data = useDeferredValue(query.data);
  // An answer not drawn yet shows as the first page still loading.
  if (data === undefined && (query.isPending || query.data !== undefined)) {
    return (
      <PagedPlaceholder caption={texts.caption} pager={texts.pager} columns={columns} pageSize={pageSize} />
    );
  }
  // Past pending, no page means the first fetch failed (a later failure keeps the last page).
  if (data === undefined) return <Alert tone="error">{texts.loadFailed}</Alert>;
  const rows = rowsOf(data);
  return (
    <div className="space-y-4">
      {query.isError && <Alert tone="warning">{texts.loadFailed}</Alert>}
      {above}
      {rows.length === 0 ? (
        <TableEmpty>{texts.empty}</TableEmpty>
      ) : (
        <ScrollTable label={texts.caption}>
          <TableHead columns={columns} testId={headTestId} />
          <tbody className="divide-y divide-line">{rows.map(children)}</tbody>
        </ScrollTable>
      )}
      <Pagination
        name={texts.pager}
        page={page}
        pageSize={pageSize}
        totalCount={data.totalCount}
        onPageChange={setPage}
        onPageSizeChange={setPageSize}
      />
      {below}
    </div>
  );
}

interface PlaceholderProps {
  caption: string;
  pager: string;
  columns: readonly TableColumn[];
  pageSize: PagedQuery<unknown>['pageSize'];
}

const sameColumns = (a: readonly TableColumn[], b: readonly TableColumn[]) =>
  a.length === b.length &&
  a.every((column, i) => {
    const other = b[i];
    return other?.label === column.label && other.numeric === column.numeric && other.wide === column.wide;
  });

const noPageChange = () => undefined;

/**
 * The headings over empty rows and the page controls' height, while the first page loads. Kept
 * as it is while what it shows is the same (the caller's columns are a new array each render):
 * the render the answer's arrival makes before its rows' deferred one then skips it, instead of
 * drawing its cells again in that synchronous task.
 */
const PagedPlaceholder = memo(
  function PagedPlaceholder({ caption, pager, columns, pageSize }: PlaceholderProps) {
    return (
      <div className="space-y-4">
        <TableSkeleton label={caption} columns={columns} rows={pageSize} />
        {/* The controls' height, shown when the total is known (inert: nothing to page yet). */}
        <div aria-hidden="true" inert className="invisible">
          <Pagination
            name={pager}
            page={1}
            pageSize={pageSize}
            totalCount={0}
            onPageChange={noPageChange}
            onPageSizeChange={noPageChange}
          />
        </div>
      </div>
    );
  },
  (a, b) =>
    a.caption === b.caption &&
    a.pager === b.pager &&
    a.pageSize === b.pageSize &&
    sameColumns(a.columns, b.columns),
);
