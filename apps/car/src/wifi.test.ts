import { describe, expect, it } from 'vitest';
import { parseWirelessRssi } from './wifi.js';

const HEADER = `Inter-| sta-|   Quality        |   Discarded packets               | Missed | WE
 face | tus | link level noise |  nwid  crypt   frag  retry   misc | beacon | 22
`;

describe('parseWirelessRssi', () => {
  it('reads the signal level of the first interface', () => {
    expect(
      parseWirelessRssi(
        `${HEADER} wlan0: 0000   58.  -52.  -256        0      0      0      0     17        0\n`,
      ),
    ).toBe(-52);
  });

  it('returns nothing without a wireless interface or with a nonsense level', () => {
    expect(parseWirelessRssi(HEADER)).toBeUndefined();
    expect(parseWirelessRssi(`${HEADER} wlan0: 0000   0.  0.  -256  0 0 0 0 0 0\n`)).toBeUndefined();
    expect(parseWirelessRssi('')).toBeUndefined();
  });
});
