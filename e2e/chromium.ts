/**
 * Debian's Chromium, never a downloaded browser, as the e2e tests and the benchmarks launch it:
 * headless, off the closed network (no updates, sync or background requests), and allowed to play
 * the live video without a click.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--autoplay-policy=no-user-gesture-required',
];
