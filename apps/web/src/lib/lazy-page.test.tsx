import { render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../i18n';
import ErrorPage from '../routes/ErrorPage';
import { lazyPage, PageLoadError } from './lazy-page';

/** A page module whose arrival the test controls. */
function deferredPage() {
  let arrive: () => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const load = vi.fn(
    () =>
      new Promise<{ default: () => React.JSX.Element }>((resolve, reject) => {
        arrive = () => resolve({ default: () => <h1>Garage</h1> });
        fail = reject;
      }),
  );
  return { load, arrive: () => arrive(), fail: (error: Error) => fail(error) };
}

function Broken(): never {
  throw new Error('Wheel fell off');
}

function renderPage(element: React.JSX.Element) {
  const router = createMemoryRouter([{ path: '/', element, errorElement: <ErrorPage /> }]);
  render(<RouterProvider router={router} />);
}

beforeEach(async () => {
  vi.spyOn(console, 'error').mockImplementation(() => {});
  await i18n.changeLanguage('en');
});

afterEach(async () => {
  await i18n.changeLanguage('en');
});

describe('a page loaded when first shown', () => {
  it('shows the loading spinner until its code is there, then the page', async () => {
    const page = deferredPage();
    renderPage(lazyPage(page.load).element);
    expect(await screen.findByRole('status')).toHaveTextContent('Loading…');
    expect(screen.queryByRole('heading', { name: 'Garage' })).not.toBeInTheDocument();
    page.arrive();
    expect(await screen.findByRole('heading', { name: 'Garage' })).toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('shows the error page with a reload when its code cannot be fetched', async () => {
    const page = deferredPage();
    renderPage(lazyPage(page.load).element);
    page.fail(new TypeError('Failed to fetch dynamically imported module: /assets/Garage-old.js'));
    expect(await screen.findByRole('heading', { name: 'Unexpected Application Error!' })).toBeInTheDocument();
    expect(screen.getByText(/Reload to get the current version/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/');
  });

  it('offers the reload in French too', async () => {
    await i18n.changeLanguage('fr');
    const page = deferredPage();
    renderPage(lazyPage(page.load).element);
    page.fail(new TypeError('Failed to fetch dynamically imported module'));
    expect(await screen.findByRole('button', { name: 'Recharger' })).toBeInTheDocument();
    expect(screen.getByText(/Rechargez pour obtenir la version actuelle/)).toBeInTheDocument();
  });

  it('offers no reload for an error thrown by a page that did load', async () => {
    renderPage(lazyPage(async () => ({ default: Broken })).element);
    expect(await screen.findByText('Wheel fell off')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Reload' })).not.toBeInTheDocument();
  });

  it('fetches its code once however often it is preloaded, and again after a failure', async () => {
    const page = deferredPage();
    const lazy = lazyPage(page.load);
    const first = lazy.preload();
    void lazy.preload();
    expect(page.load).toHaveBeenCalledTimes(1);
    page.fail(new TypeError('offline'));
    await expect(first).rejects.toBeInstanceOf(PageLoadError);
    void lazy.preload().catch(() => undefined);
    expect(page.load).toHaveBeenCalledTimes(2);
  });
});
