/**
 * A paged list's frame, the same for the admin tabs and the leaderboards: a spinner while the first
 * page loads, an error in the table's place when no page came, a warning over the last page shown
 * when a later fetch failed, the empty text, and the page controls under the table. The caller draws
 * only the table of a page's rows.
 */
import type { ReactNode } from 'react';
import { Alert } from '../ui/Alert';
import { Pagination } from './Pagination';
import { TableEmpty, TableLoading } from './table-states';
import type { PagedQuery } from './use-paged-query';

export interface PagedTableProps<Page extends { totalCount: number }, Row> {
  paged: PagedQuery<Page>;
  /** The rows of a fetched page. */
  rowsOf: (page: Page) => readonly Row[];
  loadFailed: string;
  empty: string;
  /** What is paged, for the page controls' accessible name. */
  pagerName: string;
  /** Shown over the table, under a failed-fetch warning (a notice of the last action). */
  above?: ReactNode;
  /** Shown after the page controls (a dialog the rows open). */
  below?: ReactNode;
  children: (rows: readonly Row[]) => ReactNode;
}

export function PagedTable<Page extends { totalCount: number }, Row>({
  paged: { query, page, pageSize, setPage, setPageSize },
  rowsOf,
  loadFailed,
  empty,
  pagerName,
  above,
  below,
  children,
}: PagedTableProps<Page, Row>) {
  if (query.isPending) return <TableLoading />;
  // Past pending, no page means the first fetch failed (a later failure keeps the last page).
  const data = query.data;
  if (data === undefined) return <Alert tone="error">{loadFailed}</Alert>;
  const rows = rowsOf(data);
  return (
    <div className="space-y-4">
      {query.isError && <Alert tone="warning">{loadFailed}</Alert>}
      {above}
      {rows.length === 0 ? <TableEmpty>{empty}</TableEmpty> : children(rows)}
      <Pagination
        name={pagerName}
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
