import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { admin, json, member, renderApp, resetBrowser, stubServer } from '../../test/app';

beforeEach(async () => {
  await resetBrowser();
});

function sidebar() {
  return screen.getByRole('navigation', { name: 'Main navigation' });
}

function sidebarLinks() {
  return within(sidebar())
    .getAllByRole('link')
    .map((link) => [link.textContent, link.getAttribute('href')]);
}

describe('sidebar', () => {
  it('shows the public links to a visitor', async () => {
    stubServer({ session: null });
    renderApp('/leaderboards');
    await screen.findByRole('banner');
    expect(sidebarLinks()).toEqual([
      ['Home', '/'],
      ['Leaderboards', '/leaderboards'],
      ['FAQ', '/faq'],
      ['About', '/about'],
    ]);
    expect(within(sidebar()).getByRole('link', { name: 'Leaderboards' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    expect(within(sidebar()).getByRole('link', { name: 'Home' })).not.toHaveAttribute('aria-current');
  });

  it('adds car selection, claim prize and settings for a member', async () => {
    stubServer({ session: member });
    renderApp('/settings');
    await screen.findByRole('banner');
    expect(sidebarLinks()).toEqual([
      ['Home', '/'],
      ['Leaderboards', '/leaderboards'],
      ['Choose a car', '/car-selection'],
      ['Claim prize', '/claim'],
      ['Settings', '/settings'],
      ['FAQ', '/faq'],
      ['About', '/about'],
    ]);
  });

  it('adds the admin link for an admin', async () => {
    stubServer({ session: admin });
    renderApp('/admin');
    await screen.findByRole('banner');
    expect(within(sidebar()).getByRole('link', { name: 'Admin' })).toHaveAttribute('aria-current', 'page');
  });

  it('is not there on the control page, nor is its menu button', async () => {
    stubServer({ session: member });
    renderApp('/control/3/car-3');
    // No control token in this tab: the page asks for a code instead of driving.
    expect(await screen.findByRole('heading', { level: 1, name: 'Control code needed' })).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Main navigation' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Open menu' })).not.toBeInTheDocument();
  });

  it('opens from the menu button, closes on Escape and gives focus back', async () => {
    const user = userEvent.setup();
    stubServer({ session: null });
    renderApp('/signup');
    const menu = await screen.findByRole('button', { name: 'Open menu' });
    expect(menu).toHaveAttribute('aria-expanded', 'false');
    expect(menu).toHaveAttribute('aria-controls', sidebar().id);

    await user.click(menu);
    expect(menu).toHaveAttribute('aria-expanded', 'true');
    expect(menu).toHaveAccessibleName('Close menu');
    expect(within(sidebar()).getByRole('link', { name: 'Home' })).toHaveFocus();

    await user.keyboard('{Escape}');
    expect(menu).toHaveAttribute('aria-expanded', 'false');
    expect(menu).toHaveFocus();
  });

  it('closes after a navigation', async () => {
    const user = userEvent.setup();
    stubServer({ session: null });
    const { router } = renderApp('/signup');
    const menu = await screen.findByRole('button', { name: 'Open menu' });
    await user.click(menu);
    await user.click(within(sidebar()).getByRole('link', { name: 'Leaderboards' }));
    expect(router.state.location.pathname).toBe('/leaderboards');
    expect(screen.getByRole('button', { name: 'Open menu' })).toHaveAttribute('aria-expanded', 'false');
  });
});

describe('top bar', () => {
  it('offers Sign up and Log in to a visitor', async () => {
    stubServer({ session: null });
    renderApp('/signup');
    const banner = await screen.findByRole('banner');
    expect(within(banner).getByRole('link', { name: 'Sign up' })).toHaveAttribute('href', '/signup');
    expect(within(banner).getByRole('link', { name: 'Log in' })).toHaveAttribute('href', '/login');
    expect(within(banner).getByRole('link', { name: 'Telerace home' })).toHaveAttribute('href', '/');
  });

  it('greets a member by displayed name, with the first letter as avatar, linking to the profile', async () => {
    stubServer({ session: member });
    renderApp('/signup');
    const banner = await screen.findByRole('banner');
    const profile = within(banner).getByRole('link', { name: 'Hi, speedy' });
    expect(profile).toHaveAttribute('href', '/profile');
    expect(profile).toHaveTextContent('S');
    expect(within(banner).queryByRole('link', { name: 'Log in' })).not.toBeInTheDocument();
  });

  it('shows the avatar picture when the member has one', async () => {
    stubServer({ session: { ...member, avatar_url: 'https://example.com/a.png' } });
    renderApp('/signup');
    const profile = await screen.findByRole('link', { name: 'Hi, speedy' });
    expect(profile.querySelector('img')).toHaveAttribute('src', 'https://example.com/a.png');
  });

  it('logs out: tells the server, forgets the session and goes to /login', async () => {
    const user = userEvent.setup();
    const fetchMock = stubServer({ session: member });
    const { router } = renderApp('/settings');
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(fetchMock).toHaveBeenCalledWith('/api/logout', expect.objectContaining({ method: 'POST' }));
    expect(within(screen.getByRole('banner')).getByRole('link', { name: 'Log in' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Settings' })).not.toBeInTheDocument();
  });

  it('still logs out locally when the logout request fails, and only logs the failure', async () => {
    const user = userEvent.setup();
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    stubServer({ session: member, logoutFails: true });
    const { router } = renderApp('/signup');
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(screen.getByRole('link', { name: 'Sign up' })).toBeInTheDocument();
    expect(consoleError).toHaveBeenCalledWith('Logout request failed', expect.any(TypeError));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it.each([
    [
      'en',
      'Log out',
      'You are signed out on this device. We could not record it on our server right now; it will be recorded as soon as it is back.',
    ],
    [
      'fr',
      'Se déconnecter',
      "Vous êtes déconnecté de cet appareil. Notre serveur n'a pas pu l'enregistrer pour le moment ; ce sera fait dès qu'il sera de nouveau disponible.",
    ],
  ])(
    'logs out while the server cannot record it (its database is away) and says so on /login (%s)',
    async (language, logOut, notice) => {
      const user = userEvent.setup();
      stubServer({
        session: member,
        handle: ({ method, url }) =>
          method === 'POST' && url === '/api/logout'
            ? json(202, { message: 'Signed out here, not recorded yet', recorded: false })
            : undefined,
      });
      const { router } = renderApp('/signup');
      await user.click(await screen.findByTestId(`lang-${language}`));
      await user.click(await screen.findByRole('button', { name: logOut }));
      await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
      expect(await screen.findByRole('status')).toHaveTextContent(notice);
    },
  );

  it('switches the language; the active language button is pressed and disabled', async () => {
    const user = userEvent.setup();
    stubServer({ session: null });
    renderApp('/signup');
    const en = await screen.findByTestId('lang-en');
    const fr = screen.getByTestId('lang-fr');
    expect(en).toBeDisabled();
    expect(en).toHaveAttribute('aria-pressed', 'true');
    expect(en).toHaveAccessibleName('English');
    expect(fr).toBeEnabled();
    expect(fr).toHaveAccessibleName('Français');

    await user.click(fr);
    expect(fr).toBeDisabled();
    expect(fr).toHaveAttribute('aria-pressed', 'true');
    expect(en).toBeEnabled();
    expect(en).toHaveAttribute('aria-pressed', 'false');
    expect(document.documentElement.lang).toBe('fr');
    expect(
      within(screen.getByRole('banner')).getByRole('link', { name: 'Se connecter' }),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Passer au contenu' })).toBeInTheDocument();
  });
});

describe('page frame', () => {
  it('has a skip link to the main content, and a footer with links and the current year', async () => {
    stubServer({ session: null });
    renderApp('/signup');
    const skip = await screen.findByRole('link', { name: 'Skip to content' });
    expect(skip).toHaveAttribute('href', '#main');
    expect(screen.getByRole('main')).toHaveAttribute('id', 'main');
    const footer = screen.getByRole('contentinfo');
    expect(within(footer).getByRole('link', { name: 'About' })).toHaveAttribute('href', '/about');
    expect(within(footer).getByRole('link', { name: 'Privacy' })).toHaveAttribute('href', '/privacy-policy');
    expect(within(footer).getByRole('link', { name: 'Terms' })).toHaveAttribute('href', '/terms-of-service');
    expect(footer).toHaveTextContent(`© ${new Date().getFullYear()} Telerace`);
  });
});
