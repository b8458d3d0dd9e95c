import { COOKIE_CONSENT_COOKIE } from '@telerace/protocol';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { writeCookie } from '../../lib/cookies';
import { renderApp, resetBrowser, stubServer } from '../../test/app';

beforeEach(async () => {
  await resetBrowser();
  stubServer({ session: null });
});

describe('cookie consent banner', () => {
  it('is shown without the consent cookie, with links to the privacy policy and the terms', async () => {
    renderApp('/signup');
    const banner = await screen.findByRole('region', { name: 'Cookie consent' });
    expect(within(banner).getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute(
      'href',
      '/privacy-policy',
    );
    expect(within(banner).getByRole('link', { name: 'Terms of Service' })).toHaveAttribute(
      'href',
      '/terms-of-service',
    );
  });

  it('sets the consent cookie for 150 days on Accept and hides itself', async () => {
    const user = userEvent.setup();
    const cookieWrites = vi.spyOn(document, 'cookie', 'set');
    renderApp('/signup');
    await user.click(await screen.findByTestId('cookie-accept'));

    expect(screen.queryByRole('region', { name: 'Cookie consent' })).not.toBeInTheDocument();
    expect(cookieWrites).toHaveBeenCalledWith(
      `${COOKIE_CONSENT_COOKIE}=1; max-age=${150 * 24 * 60 * 60}; path=/; SameSite=Lax`,
    );
    expect(document.cookie).toContain(`${COOKIE_CONSENT_COOKIE}=1`);
  });

  it('stays hidden when the consent cookie exists', async () => {
    writeCookie(COOKIE_CONSENT_COOKIE, '1', 3600);
    renderApp('/signup');
    await screen.findByRole('banner');
    expect(screen.queryByRole('region', { name: 'Cookie consent' })).not.toBeInTheDocument();
    expect(screen.queryByTestId('cookie-accept')).not.toBeInTheDocument();
  });
});
