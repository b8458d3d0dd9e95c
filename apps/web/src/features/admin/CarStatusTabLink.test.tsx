import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { CarLinkSummary } from './CarStatusTabLink';

afterEach(() => i18n.changeLanguage('en'));

describe('CarLinkSummary (Car Status, issue 42)', () => {
  it('shows a good link: the path, round trip, loss, stops and video', () => {
    render(
      <CarLinkSummary
        telemetry={{
          fps: 29.7,
          kbps: 640,
          link: { channel: true, rttMs: 84, lossPercent: 0.4, deadmanTrips: 0 },
        }}
      />,
    );
    expect(screen.getByTestId('car-link')).toHaveAttribute('data-health', 'good');
    expect(screen.getByText('Link good')).toBeInTheDocument();
    expect(
      screen.getByText('Channel + socket · 84 ms · 0.4 % lost · 0 stops on its own today'),
    ).toBeInTheDocument();
    // The video on a line of its own (a long line widened the admin's table).
    expect(screen.getByText('29.7 fps · 640 kbit/s')).toBeInTheDocument();
  });

  it('turns amber on a slow or lossy link and says why', () => {
    render(
      <CarLinkSummary
        telemetry={{ fps: 30, link: { channel: true, rttMs: 190, lossPercent: 4, deadmanTrips: 0 } }}
      />,
    );
    expect(screen.getByTestId('car-link')).toHaveAttribute('data-health', 'degraded');
    expect(screen.getByText('Link degraded')).toBeInTheDocument();
    expect(screen.getByText('slow round trip, packets lost')).toBeInTheDocument();
  });

  it('turns red when the car keeps stopping by itself, in French too', async () => {
    await i18n.changeLanguage('fr');
    render(<CarLinkSummary telemetry={{ link: { channel: false, rttMs: 40, deadmanTrips: 6 } }} />);
    expect(screen.getByTestId('car-link')).toHaveAttribute('data-health', 'bad');
    expect(screen.getByText('Liaison mauvaise')).toBeInTheDocument();
    expect(screen.getByText('Socket seul · 40 ms · 6 arrêts tout seuls aujourd’hui')).toBeInTheDocument();
    expect(screen.getByText('arrêts d’elle-même')).toBeInTheDocument();
  });

  it('shows the video the car sends, amber when it lowered it for a narrow uplink, in both languages (issue 43)', async () => {
    const video = {
      width: 480,
      height: 360,
      framerate: 30,
      maxBitrate: 600,
      lossPercent: 2,
      unrepairedPercent: 0.1,
    };
    const { unmount } = render(<CarLinkSummary telemetry={{ fps: 30, video: { ...video, bitrate: 600 } }} />);
    expect(screen.getByTestId('car-link')).toHaveAttribute('data-health', 'good');
    expect(
      screen.getByText('30 fps · 480×360, 600 of 600 kbit/s · video 2 % lost, 0.1 % unrepaired'),
    ).toBeInTheDocument();
    unmount();
    await i18n.changeLanguage('fr');
    render(
      <CarLinkSummary telemetry={{ fps: 30, video: { ...video, bitrate: 280, unrepairedPercent: 6 } }} />,
    );
    expect(screen.getByTestId('car-link')).toHaveAttribute('data-health', 'bad');
    expect(screen.getByText(/480×360, 280 sur 600 kbit\/s/)).toBeInTheDocument();
    expect(screen.getByText('vidéo réduite : liaison montante étroite, vidéo abîmée')).toBeInTheDocument();
  });

  it('shows nothing for a car that reports neither its link nor its video (an older agent)', () => {
    const { container } = render(<CarLinkSummary telemetry={{ speed: 1, battery: 80 }} />);
    expect(container).toBeEmptyDOMElement();
  });
});
