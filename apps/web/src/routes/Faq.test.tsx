/**
 * The FAQ (issue 41 point 12): opened from the menu it shows at once, with no spinner on the way
 * (its text is static), and its contact sentence follows the deployment's support address.
 */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { DEFAULT_PUBLIC_CONFIG, json, renderApp, resetBrowser, stubServer } from '../test/app';

beforeEach(async () => {
  await resetBrowser();
});

function withSupport(supportEmail: string | null) {
  stubServer({
    session: null,
    routes: { 'GET /api/public-config': () => json(200, { ...DEFAULT_PUBLIC_CONFIG, supportEmail }) },
  });
}

describe('the FAQ', () => {
  it('opens from the menu with no loading spinner on the way', async () => {
    withSupport(null);
    renderApp('/');
    const main = screen.getByRole('main');
    await within(main).findByRole('heading', { level: 1 });
    // Every spinner the page area ever shows, however briefly.
    let spinners = 0;
    const watch = new MutationObserver(() => {
      spinners += main.querySelectorAll('[role="status"]').length;
    });
    watch.observe(main, { childList: true, subtree: true });
    await userEvent.click(
      within(screen.getByRole('navigation', { name: /main/i })).getByRole('link', { name: 'FAQ' }),
    );
    expect(
      await within(main).findByRole('heading', { level: 1, name: 'Frequently asked questions' }),
    ).toBeVisible();
    watch.disconnect();
    expect(spinners).toBe(0);
  });

  it('gives the support address when the deployment has one', async () => {
    withSupport('help@racing.example');
    renderApp('/faq');
    const link = await screen.findAllByRole('link', { name: 'help@racing.example' });
    expect(link[0]).toHaveAttribute('href', 'mailto:help@racing.example');
    expect(screen.queryByText(/support@telerace\.example/)).toBeNull();
  });

  it('tells to ask the organiser when it has none, in English and in French', async () => {
    withSupport(null);
    renderApp('/faq');
    await waitFor(() =>
      expect(
        screen.getAllByText(/Ask the organiser of this site, during their stream or in its chat\./).length,
      ).toBeGreaterThan(0),
    );
    expect(screen.queryByText(/support@telerace\.example/)).toBeNull();
    await i18n.changeLanguage('fr');
    await waitFor(() =>
      expect(screen.getAllByText(/Adressez-vous à l'organisateur de ce site/).length).toBeGreaterThan(0),
    );
  });
});

describe('the terms', () => {
  it('give the support address in their contact sentences', async () => {
    withSupport('help@racing.example');
    renderApp('/terms-of-service');
    await waitFor(() => expect(screen.getAllByRole('link', { name: 'help@racing.example' })).toHaveLength(2));
  });
});
