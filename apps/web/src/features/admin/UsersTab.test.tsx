import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { adminUser, asAdminUser, callsTo, json, member, renderSignedIn, stubFetch } from '../profile/testing';
import { UsersTab } from './UsersTab';

const rows = [asAdminUser(adminUser, 100), asAdminUser({ ...member, last_login_at: null }, 125, 0)];
const page = { users: rows, totalCount: 2 };

afterEach(() => {
  vi.unstubAllGlobals();
});

function row(name: string) {
  const header = screen.getByRole('rowheader', { name: new RegExp(`^${name}`) });
  const tr = header.closest('tr');
  if (!tr) throw new Error('no row');
  return within(tr);
}

// The table shows placeholder rows while the first page loads: wait for the data rows, not the table.
const dataRows = () => screen.findByRole('rowheader', { name: /^speedy/ });

describe('admin UsersTab', () => {
  it('lists the users of the first page of 25', async () => {
    const fetchMock = stubFetch({ 'GET /api/admin/users': () => json(200, page) });
    await renderSignedIn(<UsersTab />, adminUser);
    expect(await screen.findByRole('table', { name: 'Registered users' })).toBeVisible();
    await dataRows();
    expect(row('speedy').getByText('Never')).toBeVisible();
    expect(row('speedy').getByText('125')).toBeVisible();
    const [url] = fetchMock.mock.calls[0] as unknown as [string];
    expect(url).toBe('/api/admin/users?page=1&limit=25');
    expect(screen.getByRole('navigation', { name: 'Pages of Users' })).toHaveTextContent('Page 1 of 1');
  });

  it('bans a user after confirmation', async () => {
    const fetchMock = stubFetch({
      'GET /api/admin/users': () => json(200, page),
      'POST /api/admin/users/12/ban': () => json(200, { user: { ...rows[1], is_banned: true } }),
    });
    const user = userEvent.setup();
    await renderSignedIn(<UsersTab />, adminUser);
    await dataRows();
    await user.click(row('speedy').getByRole('button', { name: 'Ban' }));
    expect(callsTo(fetchMock, 'POST', '/api/admin/users/12/ban')).toEqual([]);
    const dialog = screen.getByRole('dialog', { name: 'Ban speedy?' });
    await user.click(within(dialog).getByRole('button', { name: 'Ban' }));
    expect(await screen.findByText('speedy was banned.')).toBeVisible();
    expect(callsTo(fetchMock, 'POST', '/api/admin/users/12/ban')).toEqual([{ ban: true }]);
  });

  it('makes a user admin after confirmation', async () => {
    const fetchMock = stubFetch({
      'GET /api/admin/users': () => json(200, page),
      'POST /api/admin/users/12/toggle-admin': () => json(200, { user: rows[1] }),
    });
    const user = userEvent.setup();
    await renderSignedIn(<UsersTab />, adminUser);
    await dataRows();
    await user.click(row('speedy').getByRole('button', { name: 'Make admin' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Make admin' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(callsTo(fetchMock, 'POST', '/api/admin/users/12/toggle-admin')).toEqual([{ makeAdmin: true }]);
  });

  it('adjusts tickets by a whole non-zero number with a fresh request id per submit', async () => {
    const fetchMock = stubFetch({
      'GET /api/admin/users': () => json(200, page),
      'POST /api/admin/users/12/adjust-tickets': () => json(200, { user: rows[1] }),
    });
    const user = userEvent.setup();
    await renderSignedIn(<UsersTab />, adminUser);
    await dataRows();
    await user.click(row('speedy').getByRole('button', { name: 'Adjust tickets' }));
    const dialog = screen.getByRole('dialog');
    const amount = within(dialog).getByRole('spinbutton', { name: 'Amount' });
    await user.type(amount, '0');
    await user.click(within(dialog).getByRole('button', { name: 'Adjust tickets' }));
    expect(amount).toHaveAccessibleDescription(expect.stringContaining('whole number other than 0'));
    expect(callsTo(fetchMock, 'POST', '/api/admin/users/12/adjust-tickets')).toEqual([]);

    await user.clear(amount);
    await user.type(amount, '-20{Enter}');
    expect(await screen.findByText('Tickets of speedy adjusted by -20.')).toBeVisible();
    const [body] = callsTo(fetchMock, 'POST', '/api/admin/users/12/adjust-tickets') as Array<{
      amount: number;
      requestId: string;
    }>;
    expect(body?.amount).toBe(-20);
    expect(body?.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('shows "Could not delete user." when the deletion fails, and the server text when there is one', async () => {
    let answer = json(500, { error: 'Internal' });
    stubFetch({
      'GET /api/admin/users': () => json(200, page),
      'DELETE /api/admin/users/12': () => answer,
    });
    const user = userEvent.setup();
    await renderSignedIn(<UsersTab />, adminUser);
    await dataRows();
    await user.click(row('speedy').getByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete speedy?' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Could not delete user.');

    answer = json(404, { error: 'User not found' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(within(dialog).getByRole('alert')).toHaveTextContent('User not found'));
  });

  it('disables admin, ban and delete on your own row', async () => {
    stubFetch({ 'GET /api/admin/users': () => json(200, page) });
    await renderSignedIn(<UsersTab />, adminUser);
    await dataRows();
    const own = row('marshal');
    expect(own.getByRole('button', { name: 'Remove admin' })).toBeDisabled();
    expect(own.getByRole('button', { name: 'Delete' })).toBeDisabled();
    expect(own.getByRole('button', { name: 'Ban' })).toBeDisabled();
    expect(own.getByRole('button', { name: 'Adjust tickets' })).toBeEnabled();
  });

  it('says so when there are no users, and when they cannot be loaded', async () => {
    stubFetch({ 'GET /api/admin/users': () => json(200, { users: [], totalCount: 0 }) });
    const first = await renderSignedIn(<UsersTab />, adminUser);
    expect(await screen.findByText('No users yet.')).toBeVisible();
    first.unmount();

    stubFetch({ 'GET /api/admin/users': () => json(500, { error: 'Internal' }) });
    await renderSignedIn(<UsersTab />, adminUser);
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load the users.');
  });
});
