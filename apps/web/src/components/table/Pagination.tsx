/** Page controls of the paged tables (admin lists, leaderboards): page size (10/25/50/100), previous/next, "page X of Y" and the total. */
import { PAGE_SIZES, type PageSize } from '@telerace/protocol';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { compactSelectClasses } from '../../features/profile/fields';
import { formatNumber } from '../../lib/number-format';
import { Button } from '../ui/Button';

export function pageCount(totalCount: number, pageSize: number): number {
  return Math.max(1, Math.ceil(totalCount / pageSize));
}

export function isPageSize(value: number): value is PageSize {
  return (PAGE_SIZES as readonly number[]).includes(value);
}

export interface PaginationProps {
  /** What is paged, for the navigation's accessible name ("Users"). */
  name: string;
  page: number;
  pageSize: PageSize;
  totalCount: number;
  onPageChange: (page: number) => void;
  onPageSizeChange: (pageSize: PageSize) => void;
}

export function Pagination({
  name,
  page,
  pageSize,
  totalCount,
  onPageChange,
  onPageSizeChange,
}: PaginationProps) {
  const { t, i18n } = useTranslation();
  const selectId = useId();
  const pages = pageCount(totalCount, pageSize);
  return (
    <nav
      aria-label={t('admin.pagination.label', { name })}
      className="flex flex-wrap items-center justify-between gap-3 text-sm"
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <label htmlFor={selectId} className="whitespace-nowrap text-muted">
          {t('admin.pagination.pageSize')}
        </label>
        <select
          id={selectId}
          value={pageSize}
          onChange={(event) => {
            const size = Number(event.target.value);
            if (isPageSize(size)) onPageSizeChange(size);
          }}
          className={compactSelectClasses}
        >
          {PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
        <span className="whitespace-nowrap text-muted tabular-nums">
          {t('admin.pagination.total', { total: formatNumber(totalCount, i18n.resolvedLanguage) })}
        </span>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <Button variant="secondary" size="sm" disabled={page <= 1} onClick={() => onPageChange(page - 1)}>
          {t('admin.pagination.previous')}
        </Button>
        <span aria-live="polite" className="text-center font-semibold whitespace-nowrap tabular-nums">
          {t('admin.pagination.pageOf', { page, pages })}
        </span>
        <Button variant="secondary" size="sm" disabled={page >= pages} onClick={() => onPageChange(page + 1)}>
          {t('admin.pagination.next')}
        </Button>
      </div>
    </nav>
  );
}
