/** Wi-Fi signal strength for telemetry on a real car, read from Linux's /proc/net/wireless. */
import { readFileSync } from 'node:fs';
import type { Telemetry } from '@telerace/protocol';

/** The signal level (dBm) of the first wireless interface in /proc/net/wireless, if any. */
export function parseWirelessRssi(text: string): number | undefined {
  for (const line of text.split('\n').slice(2)) {
    const match = /^\s*[\w.-]+:\s+\S+\s+\S+\s+(-?\d+(?:\.\d*)?)/.exec(line);
    if (!match?.[1]) continue;
    const level = Number.parseFloat(match[1]);
    if (Number.isFinite(level) && level < 0 && level >= -150) return level;
  }
  return undefined;
}

export function wifiTelemetry(path = '/proc/net/wireless'): Telemetry {
  try {
    const rssi = parseWirelessRssi(readFileSync(path, 'utf8'));
    return rssi === undefined ? {} : { rssi };
  } catch {
    return {};
  }
}
