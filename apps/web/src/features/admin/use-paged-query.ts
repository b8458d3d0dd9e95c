/** A page of an admin list: page and page size state, refreshed every TIMERS_MS.adminRefresh (spec §9). */

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { ADMIN_DEFAULT_PAGE_SIZE, type PageSize, TIMERS_MS } from '@telerace/protocol';
import { useEffect, useState } from 'react';
import { pageCount } from './Pagination';

export function usePagedQuery<T extends { totalCount: number }>(
  key: readonly unknown[],
  fetchPage: (page: number, limit: number) => Promise<T>,
) {
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState<PageSize>(ADMIN_DEFAULT_PAGE_SIZE);
  const query = useQuery({
    queryKey: [...key, page, pageSize],
    queryFn: () => fetchPage(page, pageSize),
    refetchInterval: TIMERS_MS.adminRefresh,
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
