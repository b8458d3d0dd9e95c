import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { formatRemaining, pingTone, SessionReadout } from './readouts';

describe('pingTone', () => {
  it.each([
    [0, 'good'],
    [99, 'good'],
    [100, 'fair'],
    [250, 'fair'],
    [251, 'poor'],
    [5000, 'poor'],
  ] as const)('%d ms is %s', (ms, tone) => {
    expect(pingTone(ms)).toBe(tone);
  });
});

describe('formatRemaining', () => {
  it.each([
    [0, '0:00'],
    [-5000, '0:00'],
    [1, '0:01'],
    [59_000, '0:59'],
    [60_000, '1:00'],
    [452_100, '7:33'],
    [3_600_000, '60:00'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatRemaining(ms)).toBe(text);
  });
});

describe('SessionReadout', () => {
  it('says "until the race ends" in a few words in the full-screen strip, in full to a screen reader', async () => {
    await i18n.changeLanguage('fr');
    render(<SessionReadout end={{ kind: 'raceEnd' }} compact />);
    const readout = screen.getByTestId('session-timer');
    expect(within(readout).getByText("À vous jusqu'à l'arrivée")).toHaveAttribute('aria-hidden', 'true');
    expect(within(readout).getByText("La voiture est à vous jusqu'à la fin de la course")).toHaveClass(
      'sr-only',
    );
  });
});
