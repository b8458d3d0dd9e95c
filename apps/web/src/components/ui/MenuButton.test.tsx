import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { MenuButton, placeMenu } from './MenuButton';

const VIEW = { width: 1280, height: 800 };
const MENU = { width: 160, height: 300 };

describe('placeMenu', () => {
  it('goes under the button, right edges aligned', () => {
    expect(placeMenu({ top: 100, bottom: 132, right: 1200 }, MENU, VIEW)).toEqual({
      top: 136,
      left: 1040,
      maxHeight: 784,
    });
  });

  it('flips over the button near the bottom of the window', () => {
    const place = placeMenu({ top: 700, bottom: 732, right: 1200 }, MENU, VIEW);
    expect(place.top).toBe(396);
    expect(place.top + MENU.height).toBe(696);
  });

  it('stays inside a phone held sideways, over the button when it fits on neither side', () => {
    const sideways = { width: 844, height: 390 };
    expect(placeMenu({ top: 40, bottom: 72, right: 100 }, MENU, sideways).left).toBe(8);
    expect(placeMenu({ top: 40, bottom: 72, right: 900 }, MENU, sideways).left).toBe(676);
    // 166 px under the button, 168 over it: the window's top 8 px to 308 px.
    expect(placeMenu({ top: 180, bottom: 212, right: 600 }, MENU, sideways)).toEqual({
      top: 8,
      left: 440,
      maxHeight: 374,
    });
    expect(placeMenu({ top: 178, bottom: 210, right: 600 }, MENU, sideways).top).toBe(82);
    // Taller than the window: all of it, scrolling inside.
    expect(placeMenu({ top: 40, bottom: 72, right: 600 }, { width: 160, height: 500 }, sideways)).toEqual({
      top: 8,
      left: 440,
      maxHeight: 374,
    });
  });
});

function renderMenu() {
  const chosen = vi.fn();
  const items = ['Generate code', 'Kick', 'Reboot', 'Delete'].map((label) => ({
    key: label,
    label,
    onSelect: () => chosen(label),
    disabled: label === 'Kick',
  }));
  render(
    <>
      <div style={{ overflow: 'auto' }} data-testid="scroller">
        <MenuButton
          label="Actions"
          menuLabel="Actions for Red Comet"
          items={items}
          buttonClassName=""
          itemClassName={() => ''}
        />
      </div>
      <button type="button">Elsewhere</button>
    </>,
  );
  return { chosen, button: screen.getByRole('button', { name: 'Actions for Red Comet' }) };
}

describe('MenuButton', () => {
  it('opens outside its scrolling container, and moves with the arrow keys over the enabled items', async () => {
    const user = userEvent.setup();
    const { button, chosen } = renderMenu();
    expect(button).toHaveAttribute('aria-expanded', 'false');
    button.focus();
    await user.keyboard('{ArrowDown}');
    const menu = screen.getByRole('menu', { name: 'Actions for Red Comet' });
    expect(button).toHaveAttribute('aria-expanded', 'true');
    expect(within(screen.getByTestId('scroller')).queryByRole('menu')).toBeNull();
    const item = (name: string) => within(menu).getByRole('menuitem', { name });
    expect(item('Generate code')).toHaveFocus();
    await user.keyboard('{ArrowDown}');
    expect(item('Reboot')).toHaveFocus();
    await user.keyboard('{End}');
    expect(item('Delete')).toHaveFocus();
    await user.keyboard('{ArrowDown}');
    expect(item('Generate code')).toHaveFocus();
    await user.keyboard('{ArrowUp}');
    expect(item('Delete')).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(chosen).toHaveBeenCalledWith('Delete');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(button).toHaveFocus();
  });

  it('closes on Escape and on Tab with focus back on the button, and on a click elsewhere', async () => {
    const user = userEvent.setup();
    const { button, chosen } = renderMenu();
    await user.click(button);
    expect(within(screen.getByRole('menu')).getByRole('menuitem', { name: 'Generate code' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(button).toHaveFocus();

    await user.keyboard('{ArrowUp}');
    expect(within(screen.getByRole('menu')).getByRole('menuitem', { name: 'Delete' })).toHaveFocus();
    await user.tab();
    expect(screen.queryByRole('menu')).toBeNull();

    await user.click(button);
    await user.click(screen.getByRole('button', { name: 'Elsewhere' }));
    expect(screen.queryByRole('menu')).toBeNull();
    expect(chosen).not.toHaveBeenCalled();
  });
});
