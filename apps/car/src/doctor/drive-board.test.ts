/**
 * Check 5 on a PCA9685 without a Pi: the I²C bus is a stand-in that fails as the kernel's does
 * (no /dev/i2c-1 when I2C is off, EREMOTEIO when nothing answers at the address). The real bus is
 * what `i2c-bus` opens on the car; the sim drive needs none.
 */
import { describe, expect, it } from 'vitest';
import type { I2cBus } from '../drive/pca9685.js';
import { resolveSettings } from '../settings.js';
import { checkDriveBoard } from './drive-board.js';

const settings = (drive: string, file: unknown = {}) =>
  resolveSettings({ server: 'http://localhost:3000', car: '3', secret: 's', drive, camera: 'none', file });

const errno = (code: string) => Object.assign(new Error(`${code}, failed`), { code });

function bus(answers: Record<number, number>): {
  openSync(n: number): I2cBus;
  reads: string[];
  closed: number;
} {
  const stand = {
    reads: [] as string[],
    closed: 0,
    openSync: (n: number): I2cBus => {
      if (n !== 1) throw errno('ENOENT');
      return {
        writeByteSync: () => {
          throw new Error('the doctor writes nothing');
        },
        readByteSync: (address, register) => {
          stand.reads.push(`${address}:${register}`);
          const value = answers[address];
          if (value === undefined) throw errno('EREMOTEIO');
          return value;
        },
        closeSync: () => {
          stand.closed++;
        },
      };
    },
  };
  return stand;
}

describe('drive board check', () => {
  it('passes the simulated drive', async () => {
    expect(await checkDriveBoard(settings('sim'))).toEqual({
      status: 'pass',
      detail: 'simulated (no board)',
    });
  });

  it('reads MODE1 at the configured address, writing nothing, and closes the bus', async () => {
    const stand = bus({ 65: 0x11 });
    const result = await checkDriveBoard(settings('pca9685', { pca9685: { address: 65 } }), {
      loadI2c: async () => stand,
    });
    expect(result).toEqual({ status: 'pass', detail: 'PCA9685 answers at 0x41 on I²C bus 1 (MODE1 0x11)' });
    expect(stand.reads).toEqual(['65:0']);
    expect(stand.closed).toBe(1);
  });

  it('fails with the wiring and address fix when nothing answers', async () => {
    const result = await checkDriveBoard(settings('pca9685'), { loadI2c: async () => bus({ 65: 0 }) });
    expect(result.status).toBe('fail');
    expect(result.detail).toBe('nothing answers at 0x40 on I²C bus 1 (EREMOTEIO)');
    expect(result.fix).toContain('i2cdetect -y 1');
  });

  it('fails with "enable I2C" when the bus does not exist', async () => {
    const result = await checkDriveBoard(settings('pca9685', { pca9685: { bus: 3 } }), {
      loadI2c: async () => bus({}),
    });
    expect(result.detail).toBe('cannot open I²C bus 3 (/dev/i2c-3: ENOENT)');
    expect(result.fix).toContain('raspi-config');
  });

  it('names the package when i2c-bus or pigpio is not installed (as on this machine)', async () => {
    const pca = await checkDriveBoard(settings('pca9685'));
    expect(pca.status).toBe('fail');
    expect(pca.detail).toContain('the i2c-bus package does not load');
    expect(pca.fix).toContain('--allow-scripts=i2c-bus');
    const pigpio = await checkDriveBoard(settings('pigpio'));
    expect(pigpio.status).toBe('fail');
    expect(pigpio.detail).toContain('the pigpio package does not load');
    expect(pigpio.fix).toContain('--allow-scripts=pigpio');
  });

  it('fails with "run as root" when pigpio cannot set up its pins', async () => {
    const result = await checkDriveBoard(settings('pigpio'), {
      loadGpio: async () => () => {
        throw new Error('initInitialise: Can not open memory, probably need to run as root');
      },
    });
    expect(result.detail).toBe(
      'pigpio cannot set up GPIO 12 and 13: initInitialise: Can not open memory, probably need to run as root',
    );
    expect(result.fix).toContain('run the doctor as root');
  });
});
