/**
 * A page of a list: page and page size state. Admin lists start at 25 rows and are refreshed every
 * TIMERS_MS.adminRefresh (spec §9); the leaderboards pass their own first size (10) and no refresh.
 */

import { keepPreviousData, type UseQueryResult, useQuery } from '@tanstack/react-query';
import { ADMIN_DEFAULT_PAGE_SIZE, type PageSize, TIMERS_MS } from '@telerace/protocol';
import { useEffect, useState } from 'react';
import { pageCount } from './Pagination';

export interface PagedQueryOptions {
  initialPageSize?: PageSize;
  /** Refetch every TIMERS_MS.adminRefresh (default true). */
  refresh?: boolean;
}

/** A page of a list and its controls' state, as PagedTable takes it. */
export interface PagedQuery<T> {
  query: UseQueryResult<T>;
  page: number;
  pageSize: PageSize;
  setPage: (page: number) => void;
  /** Changes the page size and goes back to the first page. */
  setPageSize: (pageSize: PageSize) => void;
}

export function usePagedQuery<T extends { totalCount: number }>(
  key: readonly unknown[],
  fetchPage: (page: number, limit: number) => Promise<T>,
  { initialPageSize = ADMIN_DEFAULT_PAGE_SIZE, refresh = true }: PagedQueryOptions = {},
): PagedQuery<T> {
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState<PageSize>(initialPageSize);
  const query = useQuery({
    queryKey: [...key, page, pageSize],
    queryFn: () => fetchPage(page, pageSize),
    refetchInterval: refresh ? TIMERS_MS.adminRefresh : false,
    // The table keeps showing the last page while the next one loads.
    placeholderData: keepPreviousData,
  });

  // Rows deleted elsewhere can leave the current page past the end.
  const total = query.data?.totalCount;
  useEffect(() => {
    if (total === undefined) return;
    const last = pageCount(total, pageSize);
    if (page > last) setPage(last);
  }, [total, page, pageSize]);

  return {
    query,
    page,
    pageSize,
    setPage,
    setPageSize: (size: PageSize) => {
      setPageSize(size);
      setPage(1);
    },
  };
}
