import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { Pagination, pageCount } from './Pagination';

function setup(page: number, totalCount: number) {
  const onPageChange = vi.fn();
  const onPageSizeChange = vi.fn();
  render(
    <Pagination
      name="Users"
      page={page}
      pageSize={25}
      totalCount={totalCount}
      onPageChange={onPageChange}
      onPageSizeChange={onPageSizeChange}
    />,
  );
  return { onPageChange, onPageSizeChange };
}

describe('pageCount', () => {
  it.each([
    [0, 25, 1],
    [1, 25, 1],
    [25, 25, 1],
    [26, 25, 2],
    [100, 10, 10],
    [101, 100, 2],
  ])('%i rows by %i make %i pages', (total, size, pages) => {
    expect(pageCount(total, size)).toBe(pages);
  });
});

describe('Pagination', () => {
  it('shows the page, the page count and the total', () => {
    setup(2, 60);
    const nav = screen.getByRole('navigation', { name: 'Pages of Users' });
    expect(nav).toHaveTextContent('Page 2 of 3');
    expect(nav).toHaveTextContent('Total: 60');
    expect(screen.getByRole('combobox', { name: 'Rows per page' })).toHaveValue('25');
  });

  it('moves to the previous and next page', async () => {
    const user = userEvent.setup();
    const { onPageChange } = setup(2, 60);
    await user.click(screen.getByRole('button', { name: 'Previous' }));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(onPageChange.mock.calls).toEqual([[1], [3]]);
  });

  it('disables Previous on the first page and Next on the last', () => {
    setup(1, 25);
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(screen.getByRole('navigation')).toHaveTextContent('Page 1 of 1');
  });

  it('offers the page sizes 10, 25, 50 and 100', async () => {
    const user = userEvent.setup();
    const { onPageSizeChange } = setup(1, 0);
    const select = screen.getByRole('combobox', { name: 'Rows per page' });
    expect(Array.from((select as HTMLSelectElement).options, (o) => o.value)).toEqual([
      '10',
      '25',
      '50',
      '100',
    ]);
    await user.selectOptions(select, '50');
    expect(onPageSizeChange).toHaveBeenCalledWith(50);
  });
});
