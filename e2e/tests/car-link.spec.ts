/**
 * Car Status shows a car's drive link (issue 42): a car on a bad link (its agent played here by a
 * car socket speaking the protocol by hand, reporting what a real agent reports on a lossy 4G
 * link: its drive channel open, a slow round trip, packets lost, two stops on its own today) turns
 * amber, with the reasons, for the admin on a desktop and at 360 px, in English and French, in
 * both themes. A simulated car of the main server, its real agent on loopback, shows a good link
 * with its drive channel open. The car made here is deleted at the end.
 */

import WebSocket from 'ws';
import { E2E_ADMIN } from '../playwright.config.js';
import { expect, test } from './fixtures.js';
import { acceptCookies, adminToken, inBothThemes, logIn, translations } from './support.js';

const { en, fr } = translations();
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** What axe reads of the admin page: the Car Status tab's panel. */
const CAR_STATUS = { within: '#admin-panel-car-status' };

/** The link a car on a poor 4G uplink reports. */
const POOR_LINK = { channel: true, rttMs: 190, lossPercent: 4.2, deadmanTrips: 2 };

test('Car Status shows a degraded car link in amber with its reasons, and a good one', async ({
  page,
  request,
  baseURL,
}, testInfo) => {
  const name = `Poor link ${Date.now().toString(36)}`;
  const admin = bearer(await adminToken(request));
  const created = await request.post('/api/admin/cars', { headers: admin, data: { name, image_url: null } });
  expect(created.status(), await created.text()).toBe(201);
  const { car, secret } = (await created.json()) as { car: { id: number }; secret: string };
  const agent = new WebSocket(`${(baseURL ?? '').replace(/^http/, 'ws')}/rcsocket?type=car&car=${car.id}`, {
    headers: bearer(secret),
  });
  const welcomed = new Promise<void>((resolve) =>
    agent.on('message', (data) => {
      if ((JSON.parse(data.toString()) as { type: string }).type === 'welcome') resolve();
    }),
  );
  agent.once('open', () =>
    agent.send(
      JSON.stringify({
        type: 'hello',
        protocolVersion: 1,
        agentVersion: 'e2e',
        capabilities: { passes: false },
      }),
    ),
  );
  await welcomed;
  // As an agent does, every 200 ms.
  const report = setInterval(
    () => agent.send(JSON.stringify({ type: 'telemetry', battery: 71, fps: 27, kbps: 610, link: POOR_LINK })),
    200,
  );
  try {
    await acceptCookies(page.context());
    await logIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
    await page.goto('/admin?tab=car-status');
    const row = page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: new RegExp(name) }) });
    const link = row.getByTestId('car-link');
    await expect(link).toHaveAttribute('data-health', 'degraded');
    await expect(link).toContainText(en.carStatus.link.health.degraded);
    await expect(link).toContainText(
      `${en.carStatus.link.issue.rtt}, ${en.carStatus.link.issue.loss}, ${en.carStatus.link.issue.deadman}`,
    );
    await expect(link).toContainText('190 ms');
    await expect(link).toContainText('4.2 % lost');
    await link.evaluate((element) => element.scrollIntoView({ block: 'center' }));
    await inBothThemes(page, testInfo, 'car-status-link-degraded-desktop', CAR_STATUS);

    // A simulated car's real agent, on loopback: its drive channel open, its link good.
    const simulated = page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: /^Sim 1\b/ }) });
    await expect(simulated.getByTestId('car-link')).toHaveAttribute('data-health', 'good', {
      timeout: 30_000,
    });
    await expect(simulated.getByTestId('car-link')).toContainText(en.carStatus.link.channel);

    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto('/admin?tab=car-status&lng=fr');
    // At this width Car Status shows a card per car.
    const card = page.getByTestId(`admin-car-card-${car.id}`).getByTestId('car-link');
    await expect(card).toContainText(fr.carStatus.link.health.degraded);
    await expect(card).toContainText('4,2 % perdus');
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scrollWidth, 'no sideways scrolling at 360 px').toBeLessThanOrEqual(360);
    await card.evaluate((element) => element.scrollIntoView({ block: 'center' }));
    await inBothThemes(page, testInfo, 'car-status-link-degraded-360-fr', CAR_STATUS);

    // A phone held sideways: the table's width, the link still whole.
    await page.setViewportSize({ width: 844, height: 390 });
    const sideways = page.getByTestId('car-link').filter({ visible: true }).filter({ hasText: '190 ms' });
    await expect(sideways).toContainText(fr.carStatus.link.health.degraded);
    await sideways.evaluate((element) => element.scrollIntoView({ block: 'center' }));
    await inBothThemes(page, testInfo, 'car-status-link-degraded-sideways-fr', CAR_STATUS);
  } finally {
    clearInterval(report);
    agent.close();
    const deleted = await request.delete(`/api/admin/cars/${car.id}`, {
      headers: bearer(await adminToken(request)),
    });
    expect(deleted.status(), await deleted.text()).toBeLessThan(300);
  }
});
