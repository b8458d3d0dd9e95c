import { type AdminCar, DEFAULT_ADMIN_SETTINGS } from '@telerace/protocol';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { buildAdminCar } from '../../test/cars';
import { adminUser, callsTo, json, renderSignedIn, stubFetch } from '../profile/testing';
import { CarStatusTab } from './CarStatusTab';

const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

const cars: AdminCar[] = [
  buildAdminCar({
    id: 1,
    name: 'Red Comet',
    current_user_id: 12,
    username: 'speedy#12',
    session_ends_at: minutesFromNow(7.5),
    control_code: 'K7P2QA',
    control_code_expires_at: minutesFromNow(11.5),
    last_telemetry: { speed: 2.5, battery: 64, at: new Date(Date.now() - 12_000).toISOString() },
  }),
  buildAdminCar({
    id: 2,
    name: 'Blue Bolt',
    status: 'offline',
    stream_id: 8,
    config_forward_speed: 70,
    config_backward_speed: 35,
    config_steering_trim: -8,
  }),
  buildAdminCar({
    id: 3,
    name: 'Old Gold',
    stream_id: 9,
    control_code: 'H4RDQ2',
    control_code_expires_at: minutesFromNow(-1),
  }),
];

const routes = (extra: Parameters<typeof stubFetch>[0] = {}) =>
  stubFetch({
    'GET /api/admin/cars': () => json(200, cars),
    'GET /api/admin/settings': () => json(200, DEFAULT_ADMIN_SETTINGS),
    ...extra,
  });

function row(name: string) {
  const header = screen.getByRole('rowheader', { name: new RegExp(name) });
  const tr = header.closest('tr');
  if (!tr) throw new Error('no row');
  return within(tr);
}

/** A row's Actions menu, opened as an admin does: it floats over the table, outside the row. */
async function openMenu(user: ReturnType<typeof userEvent.setup>, name: string) {
  const label = i18n.t('carStatus.actionsFor', { name });
  await user.click(row(name).getByRole('button', { name: label }));
  return within(screen.getByRole('menu', { name: label }));
}

/** A row's action, reached as an admin does: the row's Actions menu first. */
async function rowAction(user: ReturnType<typeof userEvent.setup>, name: string, action: string) {
  return (await openMenu(user, name)).getByRole('menuitem', { name: action });
}

// The table shows placeholder rows while the first page loads: wait for the data rows, not the table.
const dataRows = () => screen.findByRole('rowheader', { name: /^Red Comet/ });

async function confirmIn(title: string, button: string) {
  const dialog = screen.getByRole('dialog', { name: title });
  await userEvent.setup().click(within(dialog).getByRole('button', { name: button }));
  return dialog;
}

beforeEach(async () => {
  await i18n.changeLanguage('en');
});
afterEach(() => vi.unstubAllGlobals());

describe('admin CarStatusTab', () => {
  it('lists every car with its state, driver, session end, code and telemetry', async () => {
    routes();
    await renderSignedIn(<CarStatusTab />, adminUser);
    expect(await screen.findByRole('table', { name: 'Cars' })).toBeVisible();
    await dataRows();
    const red = row('Red Comet');
    expect(red.getByText('Online')).toBeVisible();
    expect(red.getByText('speedy')).toBeVisible();
    expect(red.getByText(/in 8 min/)).toBeVisible();
    expect(red.getByText('K7P2QA')).toBeVisible();
    expect(red.getByText('expires in 12 min')).toBeVisible();
    expect(red.getByText('2.50 m/s')).toBeVisible();
    expect(red.getByText('64%')).toBeVisible();
    expect(red.getByText('12 sec ago')).toBeVisible();
    const blue = row('Blue Bolt');
    expect(blue.getByText('Offline')).toBeVisible();
    expect(blue.getByText('None yet')).toBeVisible();
    const blueActions = await openMenu(userEvent.setup(), 'Blue Bolt');
    expect(blueActions.getByRole('menuitem', { name: 'Kick' })).toBeDisabled();
    expect(blueActions.getByRole('menuitem', { name: 'Reboot' })).toBeDisabled();
    const old = row('Old Gold');
    expect(old.getByText('H4RDQ2')).toBeVisible();
    expect(old.getByText('Expired')).toBeVisible();
  });

  it('says when a code expires in French too', async () => {
    await i18n.changeLanguage('fr');
    routes();
    await renderSignedIn(<CarStatusTab />, adminUser);
    await dataRows();
    expect(row('Red Comet').getByText('expire dans 12 min')).toBeVisible();
    expect(row('Old Gold').getByText('Expiré')).toBeVisible();
  });

  it('generates a code after confirmation and shows it', async () => {
    const fetchMock = routes({ 'POST /api/admin/cars/2/generate_code': () => json(200, { code: 'ZX9Q4M' }) });
    const user = userEvent.setup();
    await renderSignedIn(<CarStatusTab />, adminUser);
    await dataRows();
    await user.click(await rowAction(user, 'Blue Bolt', 'Generate code'));
    expect(callsTo(fetchMock, 'POST', '/api/admin/cars/2/generate_code')).toEqual([]);
    await confirmIn('Generate a code for Blue Bolt?', 'Generate code');
    expect(await screen.findByTestId('control-code')).toHaveTextContent('ZX9Q4M');
    expect(callsTo(fetchMock, 'POST', '/api/admin/cars/2/generate_code')).toHaveLength(1);
  });

  it("kicks the driver after confirmation, with 'Failed to kick user.' as the fallback", async () => {
    let answer = json(500, { error: 'Internal' });
    const fetchMock = routes({ 'POST /api/admin/cars/1/kick': () => answer });
    const user = userEvent.setup();
    await renderSignedIn(<CarStatusTab />, adminUser);
    await dataRows();
    await user.click(await rowAction(user, 'Red Comet', 'Kick'));
    const dialog = await confirmIn('Kick speedy?', 'Kick');
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Failed to kick user.');
    answer = json(200, { message: 'Kicked' });
    await user.click(within(dialog).getByRole('button', { name: 'Kick' }));
    expect(await screen.findByText('speedy was kicked from Red Comet.')).toBeVisible();
    expect(callsTo(fetchMock, 'POST', '/api/admin/cars/1/kick')).toHaveLength(2);
  });

  it('sends reboot and shutdown commands, and says why one failed', async () => {
    let answer = json(200, { message: 'ok' });
    const fetchMock = routes({ 'POST /api/admin/cars/1/command': () => answer });
    const user = userEvent.setup();
    await renderSignedIn(<CarStatusTab />, adminUser);
    await dataRows();
    await user.click(await rowAction(user, 'Red Comet', 'Reboot'));
    await confirmIn('Reboot Red Comet?', 'Reboot');
    expect(await screen.findByText('Reboot sent to Red Comet.')).toBeVisible();

    answer = json(409, { error: 'The car is offline', errorKey: 'errors.carOffline' });
    await user.click(await rowAction(user, 'Red Comet', 'Shut down'));
    const dialog = await confirmIn('Shut down Red Comet?', 'Shut down');
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Failed to send command: This car is offline right now.',
    );
    expect(callsTo(fetchMock, 'POST', '/api/admin/cars/1/command')).toEqual([
      { command: 'reboot' },
      { command: 'shutdown' },
    ]);
  });

  it('deletes a car after confirmation', async () => {
    const fetchMock = routes({
      'DELETE /api/admin/cars/2': () => json(200, { message: 'The car was deleted.' }),
    });
    const user = userEvent.setup();
    await renderSignedIn(<CarStatusTab />, adminUser);
    await dataRows();
    await user.click(await rowAction(user, 'Blue Bolt', 'Delete'));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Cancel' }));
    expect(callsTo(fetchMock, 'DELETE', '/api/admin/cars/2')).toEqual([]);
    await user.click(await rowAction(user, 'Blue Bolt', 'Delete'));
    await confirmIn('Delete Blue Bolt?', 'Delete');
    expect(await screen.findByText('Blue Bolt was deleted.')).toBeVisible();
    expect(callsTo(fetchMock, 'DELETE', '/api/admin/cars/2')).toHaveLength(1);
  });

  it('rotates the secret and shows it once with a warning and a copy button', async () => {
    routes({ 'POST /api/admin/cars/1/rotate-secret': () => json(200, { secret: 'sec_abc123' }) });
    const user = userEvent.setup();
    await renderSignedIn(<CarStatusTab />, adminUser);
    await dataRows();
    await user.click(await rowAction(user, 'Red Comet', 'Rotate secret'));
    await confirmIn('Rotate the secret of Red Comet?', 'Rotate secret');
    expect(await screen.findByTestId('car-secret')).toHaveTextContent('sec_abc123');
    expect(screen.getByText(/shown only once/)).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    // user-event stands in for the clipboard.
    expect(await navigator.clipboard.readText()).toBe('sec_abc123');
    expect(await screen.findByText('Copied to the clipboard.')).toBeVisible();
  });

  it('adds a car and shows its secret once', async () => {
    const fetchMock = routes({
      'POST /api/admin/cars': () =>
        json(201, {
          car: buildAdminCar({ id: 9, name: 'Green Flash', status: 'offline' }),
          secret: 'sec_new',
        }),
    });
    const user = userEvent.setup();
    await renderSignedIn(<CarStatusTab />, adminUser);
    await dataRows();
    await user.click(screen.getByRole('button', { name: 'Add car' }));
    const dialog = screen.getByRole('dialog', { name: 'Add a car' });
    await user.click(within(dialog).getByRole('button', { name: 'Add car' }));
    expect(within(dialog).getByText('A name is required.')).toBeVisible();
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Green Flash');
    await user.type(within(dialog).getByRole('textbox', { name: /Image URL/ }), 'ftp://x');
    await user.click(within(dialog).getByRole('button', { name: 'Add car' }));
    expect(within(dialog).getByText('The address must start with / or http(s)://.')).toBeVisible();
    await user.clear(within(dialog).getByRole('textbox', { name: /Image URL/ }));
    await user.type(within(dialog).getByRole('textbox', { name: /Image URL/ }), '/cars/green.jpg');
    await user.click(within(dialog).getByRole('button', { name: 'Add car' }));
    expect(await screen.findByTestId('car-secret')).toHaveTextContent('sec_new');
    expect(callsTo(fetchMock, 'POST', '/api/admin/cars')).toEqual([
      { name: 'Green Flash', image_url: '/cars/green.jpg' },
    ]);
  });

  it('saves the session duration, within 1 to 240 minutes', async () => {
    let answer = json(200, {
      car_session_duration_minutes: 15,
      race_countdown_seconds: 5,
      race_length_minutes: 3,
      min_lap_time_seconds: 3,
      chat_announce_raffle_opened: true,
      chat_announce_raffle_winners: true,
      chat_announce_race_podium: true,
    });
    const fetchMock = routes({ 'PATCH /api/admin/settings': () => answer });
    const user = userEvent.setup();
    await renderSignedIn(<CarStatusTab />, adminUser);
    const minutes = await screen.findByRole('spinbutton', { name: 'Minutes' });
    await waitFor(() => expect(minutes).toHaveValue(10));
    await user.clear(minutes);
    await user.type(minutes, '241');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(minutes).toHaveAccessibleDescription('Enter a whole number of minutes from 1 to 240.');
    await user.clear(minutes);
    await user.type(minutes, '15');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Settings saved.')).toBeVisible();
    expect(callsTo(fetchMock, 'PATCH', '/api/admin/settings')).toEqual([
      { car_session_duration_minutes: 15 },
    ]);

    answer = json(500, { error: 'Internal' });
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Failed to save settings.')).toBeVisible();
  });

  it('saves a car’s lap counter id, clears it when emptied, and shows why it was refused', async () => {
    const user = userEvent.setup();
    let answer = json(200, { car: { ...cars[0], lap_counter_id: '0A' } });
    const fetchMock = routes({ 'PUT /api/admin/cars/1/lap-counter-id': () => answer });
    await renderSignedIn(<CarStatusTab />, adminUser);
    await dataRows();
    const red = row('Red Comet');
    const input = red.getByRole('textbox', { name: 'Lap counter id of Red Comet' });
    const save = red.getByRole('button', { name: 'Save the lap counter id of Red Comet' });

    await user.type(input, 'two words');
    await user.click(save);
    expect(await red.findByRole('alert')).toHaveTextContent(
      'Up to 40 letters, digits and _ . : - (empty clears it).',
    );
    expect(callsTo(fetchMock, 'PUT', '/api/admin/cars/1/lap-counter-id')).toEqual([]);

    await user.clear(input);
    await user.type(input, '0A');
    await user.click(save);
    expect(await red.findByText('Saved.')).toBeVisible();
    expect(input).toHaveValue('0A');

    answer = json(409, { error: 'in use', errorKey: 'errors.lapCounterIdInUse' });
    await user.clear(input);
    await user.click(save);
    expect(await red.findByRole('alert')).toHaveTextContent(
      'This lap counter id is already used by another car.',
    );
    expect(callsTo(fetchMock, 'PUT', '/api/admin/cars/1/lap-counter-id')).toEqual([
      { lap_counter_id: '0A' },
      { lap_counter_id: null },
    ]);
  });

  it("changes any car's speed and trim in a dialog: current values, busy Save, success and error", async () => {
    let answer: () => Promise<Response> = async () => json(200, { car: cars[1] });
    const fetchMock = routes({ 'POST /api/admin/cars/2/config': () => answer() });
    const user = userEvent.setup();
    await renderSignedIn(<CarStatusTab />, adminUser);
    await dataRows();
    await user.click(await rowAction(user, 'Blue Bolt', 'Speed & trim'));
    const dialog = screen.getByRole('dialog', { name: 'Speed and trim of Blue Bolt' });
    const forward = within(dialog).getByRole('slider', { name: 'Forward speed' });
    const backward = within(dialog).getByRole('slider', { name: 'Backward speed' });
    const trim = within(dialog).getByRole('slider', { name: 'Steering trim' });
    expect(forward).toHaveFocus();
    expect([forward, backward, trim].map((slider) => (slider as HTMLInputElement).value)).toEqual([
      '70',
      '35',
      '-8',
    ]);
    expect(trim).toHaveAttribute('min', '-50');
    expect(backward).toHaveAttribute('max', '100');

    let release = () => {};
    answer = () =>
      new Promise((resolve) => {
        release = () => resolve(json(200, { car: cars[1] }));
      });
    fireEvent.change(forward, { target: { value: '55' } });
    fireEvent.change(trim, { target: { value: '12' } });
    const save = within(dialog).getByRole('button', { name: 'Save' });
    await user.click(save);
    await waitFor(() => expect(save).toHaveAttribute('aria-busy', 'true'));
    release();
    expect(await within(dialog).findByText('Car settings saved')).toBeVisible();
    expect(save).not.toHaveAttribute('aria-busy');
    expect(callsTo(fetchMock, 'POST', '/api/admin/cars/2/config')).toEqual([
      { forwardSpeedPercent: 55, backwardSpeedPercent: 35, trimValue: 12 },
    ]);

    answer = async () => json(500, { error: 'Internal' });
    fireEvent.change(backward, { target: { value: '20' } });
    await user.click(save);
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Error saving settings');
    answer = async () => json(404, { error: 'Car not found', errorKey: 'errors.carNotFound' });
    await user.click(save);
    await waitFor(() =>
      expect(within(dialog).getByRole('alert')).toHaveTextContent('This car does not exist.'),
    );

    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await user.click(await rowAction(user, 'Blue Bolt', 'Speed & trim'));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('names the speed and trim action in French', async () => {
    await i18n.changeLanguage('fr');
    routes();
    const user = userEvent.setup();
    await renderSignedIn(<CarStatusTab />, adminUser);
    await screen.findByRole('rowheader', { name: /^Red Comet/ });
    await user.click(await rowAction(user, 'Red Comet', 'Vitesse et trim'));
    const dialog = screen.getByRole('dialog', { name: 'Vitesse et trim de Red Comet' });
    expect(within(dialog).getByRole('slider', { name: 'Vitesse avant' })).toHaveValue('100');
    expect(within(dialog).getByRole('button', { name: 'Annuler' })).toBeVisible();
  });

  it('says so when there are no cars, and when they cannot be loaded', async () => {
    routes({ 'GET /api/admin/cars': () => json(200, []) });
    const first = await renderSignedIn(<CarStatusTab />, adminUser);
    expect(await screen.findByText('No cars yet. Add the first one.')).toBeVisible();
    first.unmount();
    routes({ 'GET /api/admin/cars': () => json(500, { error: 'Internal' }) });
    await renderSignedIn(<CarStatusTab />, adminUser);
    expect(await screen.findByText('Could not load the cars.')).toBeVisible();
  });
});
