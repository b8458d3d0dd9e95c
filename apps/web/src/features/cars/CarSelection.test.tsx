import type { Car } from '@telerace/protocol';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useParams } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { resetAuthClient } from '../../lib/auth-client';
import CarSelection from '../../routes/CarSelection';
import { buildCar } from '../../test/cars';
import { callsTo, json, member, renderSignedIn, stubFetch } from '../profile/testing';

const cars: Car[] = [
  buildCar({ id: 1, name: 'Red Comet' }),
  buildCar({ id: 2, name: 'Blue Bolt', status: 'offline', stream_id: 8 }),
  buildCar({ id: 3, name: 'Green Flash', current_user_id: 44, username: 'drifter#44', stream_id: 9 }),
  buildCar({
    id: 4,
    name: 'Yellow Jacket',
    current_user_id: member.id,
    username: member.username,
    stream_id: 10,
  }),
];

function ControlMarker() {
  const { carId, streamId } = useParams();
  return <p>control page {`${carId}/${streamId}`}</p>;
}

function renderPage() {
  return renderSignedIn(<CarSelection />, member, {
    at: '/car-selection',
    path: '/car-selection',
    routes: [{ path: '/control/:carId/:streamId', element: <ControlMarker /> }],
  });
}

beforeEach(async () => {
  resetAuthClient();
  window.sessionStorage.clear();
  await i18n.changeLanguage('en');
});
afterEach(() => vi.unstubAllGlobals());

describe('Car selection', () => {
  it('shows every car with its state and who drives it', async () => {
    stubFetch({ 'GET /api/cars': () => json(200, cars) });
    await renderPage();
    const red = await screen.findByTestId('car-1');
    expect(red).toHaveTextContent('Red Comet');
    expect(red).toHaveTextContent('Online');
    expect(red).toHaveTextContent('Available');
    expect(screen.getByTestId('car-2')).toHaveTextContent('Offline');
    expect(screen.getByTestId('car-3')).toHaveTextContent('In use by drifter');
    expect(screen.getByTestId('car-3')).not.toHaveTextContent('#44');
    expect(screen.getByTestId('car-4')).toHaveTextContent('You are driving this car');
    expect(screen.getByText('4 cars · 3 online')).toBeVisible();
  });

  it('says so when there are no cars, and when they cannot be loaded', async () => {
    stubFetch({ 'GET /api/cars': () => json(200, []) });
    const first = await renderPage();
    expect(await screen.findByText('No cars on the track yet')).toBeVisible();
    first.unmount();
    stubFetch({ 'GET /api/cars': () => json(500, { error: 'Internal' }) });
    await renderPage();
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load available cars');
  });

  it('upper-cases the code as typed and requires one', async () => {
    const fetchMock = stubFetch({ 'GET /api/cars': () => json(200, cars) });
    const user = userEvent.setup();
    await renderPage();
    await user.click(await screen.findByTestId('car-1'));
    const dialog = screen.getByRole('dialog', { name: 'Drive Red Comet' });
    const input = within(dialog).getByRole('textbox', { name: 'Control code' });
    expect(input).toHaveFocus();
    expect(input).toHaveAttribute('autocapitalize', 'characters');
    await user.click(within(dialog).getByRole('button', { name: 'Connect' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('A control code is required.');
    expect(callsTo(fetchMock, 'POST', '/api/cars/1/connect')).toEqual([]);
    await user.type(input, 'ab3x');
    expect(input).toHaveValue('AB3X');
  });

  it('connects with the code, keeps the control token and opens the control page', async () => {
    const fetchMock = stubFetch({
      'GET /api/cars': () => json(200, cars),
      'POST /api/cars/1/connect': () =>
        json(200, {
          ok: true,
          car: { ...cars[0], current_user_id: member.id, video: { available: true, pin: 'pin-123' } },
          controlToken: 'ctl-123',
        }),
    });
    const user = userEvent.setup();
    await renderPage();
    await user.click(await screen.findByTestId('car-1'));
    await user.type(screen.getByRole('textbox', { name: 'Control code' }), 'k7p2qa{Enter}');
    expect(await screen.findByText('control page 1/7')).toBeVisible();
    expect(callsTo(fetchMock, 'POST', '/api/cars/1/connect')).toEqual([{ code: 'K7P2QA' }]);
    expect(window.sessionStorage.getItem('controlToken:1')).toBe('ctl-123');
    expect(window.sessionStorage.getItem('videoPin:1')).toBe('pin-123');
  });

  it("shows the server's refusal, translated by its errorKey, else its text, else 'Failed to connect'", async () => {
    let answer = json(409, { error: 'Car in use', errorKey: 'errors.carInUse' });
    stubFetch({ 'GET /api/cars': () => json(200, cars), 'POST /api/cars/3/connect': () => answer });
    const user = userEvent.setup();
    await renderPage();
    await user.click(await screen.findByTestId('car-3'));
    const dialog = screen.getByRole('dialog');
    await user.type(within(dialog).getByRole('textbox'), 'ABCDEF');
    await user.click(within(dialog).getByRole('button', { name: 'Connect' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'This car is already in use by another driver.',
    );
    expect(window.sessionStorage.getItem('controlToken:3')).toBeNull();

    answer = json(409, { error: 'Somebody else is driving' });
    await user.click(within(dialog).getByRole('button', { name: 'Connect' }));
    expect(await within(dialog).findByText('Somebody else is driving')).toBeVisible();

    answer = json(500, { error: 'Internal' });
    await user.click(within(dialog).getByRole('button', { name: 'Connect' }));
    expect(await within(dialog).findByText('Failed to connect')).toBeVisible();
  });

  it('goes straight to the control page of a car the user holds with a stored token', async () => {
    const fetchMock = stubFetch({ 'GET /api/cars': () => json(200, cars) });
    window.sessionStorage.setItem('controlToken:4', 'ctl-mine');
    const user = userEvent.setup();
    await renderPage();
    await user.click(await screen.findByTestId('car-4'));
    expect(await screen.findByText('control page 4/10')).toBeVisible();
    expect(fetchMock.mock.calls.some(([url]) => String(url).includes('/connect'))).toBe(false);
  });

  it('asks for the code for a held car whose token this tab does not have', async () => {
    stubFetch({ 'GET /api/cars': () => json(200, cars) });
    const user = userEvent.setup();
    await renderPage();
    await user.click(await screen.findByTestId('car-4'));
    expect(screen.getByRole('dialog', { name: 'Drive Yellow Jacket' })).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
