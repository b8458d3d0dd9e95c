/**
 * Check 5: the drive board answers. The simulator always does; a PCA9685 must answer a read of its
 * MODE1 register at the configured address on the configured I²C bus (a read changes nothing on
 * the board); pigpio must load and set up its pins (which puts out neutral pulses, as the agent's
 * start does).
 */
import { type I2cBus, loadI2cBus, PCA9685 } from '../drive/pca9685.js';
import { loadGpioFactory, PigpioBackend } from '../drive/pigpio.js';
import type { AgentSettings } from '../settings.js';
import { type CheckResult, fail, pass } from './format.js';

const hex = (n: number) => `0x${n.toString(16).padStart(2, '0')}`;

export interface DriveBoardDeps {
  loadI2c?: () => Promise<{ openSync(bus: number): I2cBus }>;
  loadGpio?: typeof loadGpioFactory;
}

export async function checkDriveBoard(
  settings: AgentSettings,
  deps: DriveBoardDeps = {},
): Promise<CheckResult> {
  switch (settings.drive) {
    case 'sim':
      return pass('simulated (no board)');
    case 'pca9685':
      return checkPca9685(settings, deps.loadI2c ?? loadI2cBus);
    case 'pigpio':
      return checkPigpio(settings, deps.loadGpio ?? loadGpioFactory);
  }
}

async function checkPca9685(
  settings: AgentSettings,
  load: () => Promise<{ openSync(bus: number): I2cBus }>,
): Promise<CheckResult> {
  const { bus: busNumber, address } = settings.pca9685;
  let i2c: { openSync(bus: number): I2cBus };
  try {
    i2c = await load();
  } catch {
    return fail(
      'the i2c-bus package does not load (not installed beside the agent, or built for another Node.js)',
      'install it as docs/car.md "Install on Raspberry Pi OS" says (sudo npm install -g --prefix /usr/local --nodedir=… --allow-scripts=i2c-bus i2c-bus)',
    );
  }
  let bus: I2cBus;
  try {
    bus = i2c.openSync(busNumber);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES')
      return fail(
        `no permission on /dev/i2c-${busNumber}`,
        "add the agent's user to the i2c group (sudo usermod -aG i2c USER)",
      );
    return fail(
      `cannot open I²C bus ${busNumber} (/dev/i2c-${busNumber}: ${code ?? (error as Error).message})`,
      'enable I2C (sudo raspi-config → Interface Options → I2C), reboot; or correct pca9685.bus',
    );
  }
  try {
    const mode1 = bus.readByteSync(address, PCA9685.MODE1);
    return pass(`PCA9685 answers at ${hex(address)} on I²C bus ${busNumber} (MODE1 ${hex(mode1)})`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fail(
      `nothing answers at ${hex(address)} on I²C bus ${busNumber} (${code ?? (error as Error).message})`,
      `check the wiring (SDA, SCL, VCC, GND) and the address: sudo i2cdetect -y ${busNumber} lists what answers (pca9685.address is decimal: 64 = 0x40)`,
    );
  } finally {
    bus.closeSync?.();
  }
}

async function checkPigpio(settings: AgentSettings, load: typeof loadGpioFactory): Promise<CheckResult> {
  const { steeringPin, throttlePin } = settings.pigpio;
  let gpio: Awaited<ReturnType<typeof loadGpioFactory>>;
  try {
    gpio = await load();
  } catch {
    return fail(
      'the pigpio package does not load (not installed beside the agent, or built for another Node.js)',
      'install it as docs/car.md "Install on Raspberry Pi OS" says (sudo apt-get install -y pigpio, then sudo npm install -g --prefix /usr/local --nodedir=… --allow-scripts=pigpio pigpio)',
    );
  }
  try {
    await new PigpioBackend(gpio, settings.pigpio).close();
    return pass(`pigpio drives GPIO ${throttlePin} (throttle) and ${steeringPin} (steering), neutral`);
  } catch (error) {
    return fail(
      `pigpio cannot set up GPIO ${throttlePin} and ${steeringPin}: ${(error as Error).message}`,
      'run the doctor as root like the service (pigpio needs it), stop the pigpiod daemon if it runs (the library starts its own); a Pi 5 cannot use pigpio: use a PCA9685',
    );
  }
}
