import { describe, expect, it } from 'vitest';
import { parseCli } from './cli.js';

const noFile = () => {
  throw new Error('ENOENT: no such file');
};
const files = (content: string) => () => content;
const base = ['--server', 'http://localhost:3000', '--car', '3'];

function error(
  args: string[],
  env: Record<string, string> = { CAR_SECRET: 's3cret' },
  read: (path: string) => string = noFile,
) {
  const result = parseCli(args, env, read);
  if (result.kind !== 'error') throw new Error(`expected an error, got ${result.kind}`);
  return result.message;
}

describe('parseCli', () => {
  it('runs the doctor with the same options as the agent, --quick only there', () => {
    const config = files('{"drive": "pca9685", "pca9685": {"address": 65}}');
    const doctor = parseCli(
      ['doctor', ...base, '--quick', '--config', 'car.json'],
      { CAR_SECRET: 's3cret' },
      config,
    );
    expect(doctor).toMatchObject({ kind: 'doctor', quick: true, settings: { carId: '3', drive: 'pca9685' } });
    if (doctor.kind === 'doctor') expect(doctor.settings.pca9685.address).toBe(65);
    expect(parseCli(['doctor', ...base], { CAR_SECRET: 's3cret' }, noFile)).toMatchObject({ quick: false });
    expect(error([...base, '--quick'])).toMatch(/--quick/);
    expect(error(['doctor', '--car', '3'])).toMatch(/missing --server/);
  });

  it('runs with defaults: sim drive, secret from CAR_SECRET', () => {
    const result = parseCli(base, { CAR_SECRET: 's3cret' }, noFile);
    expect(result.kind).toBe('run');
    if (result.kind !== 'run') return;
    expect(result.settings).toMatchObject({
      server: 'http://localhost:3000',
      carId: '3',
      secret: 's3cret',
      drive: 'sim',
    });
    expect(result.settings.pca9685).toMatchObject({ bus: 1, address: 0x40, frequencyHz: 60 });
    expect(result.settings.commands.reboot).toEqual(['sudo', 'systemctl', 'reboot']);
  });

  it('turns the simulated car’s steering assist on by default, off with --assist off or the file', () => {
    const assist = (args: string[], file?: string) => {
      const result = parseCli([...base, ...args], { CAR_SECRET: 's3cret' }, file ? files(file) : noFile);
      if (result.kind !== 'run') throw new Error(`expected run, got ${result.kind}`);
      return result.settings.assist;
    };
    expect(assist([])).toBe(true);
    expect(assist(['--assist', 'off'])).toBe(false);
    expect(assist(['--assist', 'on'])).toBe(true);
    expect(assist(['--config', 'car.json'], '{"assist": false}')).toBe(false);
    expect(assist(['--config', 'car.json', '--assist', 'on'], '{"assist": false}')).toBe(true);
    expect(error([...base, '--assist', 'maybe'])).toBe('--assist must be on or off');
    expect(error([...base, '--config', 'car.json'], { CAR_SECRET: 's' }, files('{"assist": "off"}'))).toBe(
      'config: "assist" must be true or false',
    );
  });

  it('offers the drive channel by default, not with --drive-channel off or the file', () => {
    const driveChannel = (args: string[], file?: string) => {
      const result = parseCli([...base, ...args], { CAR_SECRET: 's3cret' }, file ? files(file) : noFile);
      if (result.kind !== 'run') throw new Error(`expected run, got ${result.kind}`);
      return result.settings.driveChannel;
    };
    expect(driveChannel([])).toBe(true);
    expect(driveChannel(['--drive-channel', 'off'])).toBe(false);
    expect(driveChannel(['--config', 'car.json'], '{"driveChannel": false}')).toBe(false);
    expect(error([...base, '--drive-channel', 'udp'])).toBe('--drive-channel must be on or off');
  });

  it('prefers --secret when given', () => {
    const result = parseCli([...base, '--secret', 'flag'], { CAR_SECRET: 'env' }, noFile);
    expect(result.kind === 'run' && result.settings.secret).toBe('flag');
  });

  it('answers --help and --version', () => {
    expect(parseCli(['--help'], {}, noFile).kind).toBe('help');
    expect(parseCli(['--version'], {}, noFile).kind).toBe('version');
  });

  it('reports each missing or wrong argument in one line, without the secret', () => {
    expect(error(['--car', '3'])).toMatch(/missing --server/);
    expect(error(['--server', 'http://x'])).toMatch(/missing --car/);
    expect(error(base, {})).toMatch(/CAR_SECRET/);
    expect(error([...base.slice(0, 2), '--car', 'abc'])).toMatch(/--car must be a positive whole number/);
    expect(error(['--server', 'not a url', '--car', '3'])).toMatch(/not a URL/);
    expect(error(['--server', 'ftp://x', '--car', '3'])).toMatch(/http/);
    expect(error([...base, '--drive', 'rocket'])).toMatch(/--drive must be one of sim, pca9685, pigpio/);
    expect(error([...base, '--bogus'])).toMatch(/bogus/);
    expect(error([...base, 'positional'])).toMatch(/positional/);
    expect(error([...base, '--server'])).toMatch(/server/);
    for (const message of [error(base, {}), error([...base, '--drive', 'x'], { CAR_SECRET: 'hunter2' })]) {
      expect(message).not.toMatch(/\n/);
      expect(message).not.toContain('hunter2');
    }
  });

  it('reads everything from a config file, the command line winning', () => {
    const file = JSON.stringify({
      server: 'https://race.example.com',
      car: 9,
      drive: 'pca9685',
      pca9685: {
        address: 65,
        frequencyHz: 50,
        steering: { channel: 3, minUs: 1100, centerUs: 1480, maxUs: 1900 },
      },
      pigpio: { steeringPin: 18 },
      slew: { throttlePerSecond: 2 },
      trimMax: 0.3,
      commands: { reboot: ['/usr/bin/true'] },
    });
    const result = parseCli(['--config', 'car.json', '--car', '4'], { CAR_SECRET: 's' }, files(file));
    expect(result.kind).toBe('run');
    if (result.kind !== 'run') return;
    const { settings } = result;
    expect(settings).toMatchObject({
      server: 'https://race.example.com',
      carId: '4',
      drive: 'pca9685',
      trimMax: 0.3,
    });
    expect(settings.pca9685).toEqual({
      bus: 1,
      address: 65,
      frequencyHz: 50,
      steering: { channel: 3, minUs: 1100, centerUs: 1480, maxUs: 1900 },
      throttle: { channel: 0, minUs: 1000, centerUs: 1500, maxUs: 2000 },
    });
    expect(settings.pigpio.steeringPin).toBe(18);
    expect(settings.slew).toEqual({ throttlePerSecond: 2, steerPerSecond: 8 });
    expect(settings.commands).toEqual({
      reboot: ['/usr/bin/true'],
      shutdown: ['sudo', 'systemctl', 'poweroff'],
    });
  });

  it('rejects a bad config file with the offending key', () => {
    const withFile = (json: string) =>
      error([...base, '--config', 'c.json'], { CAR_SECRET: 's' }, files(json));
    expect(error([...base, '--config', 'missing.json'])).toMatch(/cannot read --config missing.json/);
    expect(withFile('{oops')).toMatch(/not valid JSON/);
    expect(withFile('[]')).toMatch(/JSON object/);
    expect(withFile('{"pca9685": {"frequencyHz": 5}}')).toMatch(
      /pca9685.frequencyHz" must be a number from 40 to 200/,
    );
    expect(withFile('{"pca9685": {"throttle": {"channel": 1}}}')).toMatch(/different channels/);
    expect(withFile('{"pca9685": {"steering": {"channel": 2.5}}}')).toMatch(/whole number/);
    expect(withFile('{"pigpio": {"steering": {"centerUs": 2100}}}')).toMatch(/strictly between/);
    expect(withFile('{"commands": {"shutdown": "sudo poweroff"}}')).toMatch(/array of strings/);
    expect(withFile('{"slew": 3}')).toMatch(/"slew" must be an object/);
  });

  it('picks the camera: sim with the simulated drive, libcamera otherwise, --camera, CAMERA or the file', () => {
    const settings = (args: string[], env: Record<string, string> = {}, file?: string) => {
      const result = parseCli(
        [...base, ...args, ...(file ? ['--config', 'c.json'] : [])],
        { CAR_SECRET: 's', ...env },
        file ? files(file) : noFile,
      );
      if (result.kind !== 'run') throw new Error(result.kind === 'error' ? result.message : result.kind);
      return result.settings;
    };
    // The simulated camera is smaller by default (CPU on small machines); a real one is 640×480.
    expect(settings([]).video).toEqual({
      camera: 'sim',
      device: '/dev/video0',
      width: 480,
      height: 360,
      framerate: 30,
      bitrate: 600,
      repair: 'auto',
    });
    // VIDEO_REPAIR over the file's video.repair (the loss bench measures with it off).
    expect(settings([], { VIDEO_REPAIR: 'off' }, '{"video": {"repair": "fec"}}').video.repair).toBe('off');
    expect(settings([], {}, '{"video": {"repair": "fec"}}').video.repair).toBe('fec');
    expect(error(base, { CAR_SECRET: 's', VIDEO_REPAIR: 'maybe' }, noFile)).toBe(
      'video repair must be one of auto, fec, off',
    );
    expect(settings(['--drive', 'pca9685']).video).toMatchObject({
      camera: 'libcamera',
      width: 640,
      height: 480,
      bitrate: 800,
    });
    // The bitrate follows the size and the rate unless the file gives it.
    expect(settings([], { CAMERA_FRAMERATE: '60' }).video.bitrate).toBe(850);
    expect(settings([], { CAMERA_FRAMERATE: '60', CAMERA_SIZE: '1280x720' }).video.bitrate).toBe(1950);
    expect(settings([], { CAMERA_FRAMERATE: '15', CAMERA_SIZE: '320x240' }).video.bitrate).toBe(300);
    expect(settings([], { CAMERA_FRAMERATE: '60' }, '{"video": {"bitrate": 700}}').video.bitrate).toBe(700);
    expect(settings(['--drive', 'pca9685'], {}, '{"video": {"framerate": 60}}').video.bitrate).toBe(1150);
    expect(settings(['--camera', 'none']).video.camera).toBe('none');
    expect(settings([], { CAMERA: 'test' }).video.camera).toBe('test');
    expect(settings(['--camera', 'v4l2'], { CAMERA: 'test' }).video.camera).toBe('v4l2');
    // CAMERA_FRAMERATE over the file's frame rate (a busy test machine's simulated cars).
    expect(settings([], { CAMERA_FRAMERATE: '15' }).video.framerate).toBe(15);
    expect(settings([], { CAMERA_FRAMERATE: '20' }, '{"video": {"framerate": 25}}').video.framerate).toBe(20);
    expect(settings([], {}, '{"video": {"framerate": 25}}').video.framerate).toBe(25);
    for (const wrong of ['0', '61', '12.5', 'fast']) {
      expect(error(base, { CAR_SECRET: 's', CAMERA_FRAMERATE: wrong }, noFile)).toBe(
        'CAMERA_FRAMERATE must be a whole number from 1 to 60',
      );
    }
    // CAMERA_SIZE over the file's size (the browser tests' simulated cars).
    expect(settings([], { CAMERA_SIZE: '320x240' }).video).toMatchObject({ width: 320, height: 240 });
    expect(
      settings([], { CAMERA_SIZE: '1920x1080' }, '{"video": {"width": 800, "height": 600}}').video,
    ).toMatchObject({ width: 1920, height: 1080 });
    expect(settings([], {}, '{"video": {"width": 800, "height": 600}}').video).toMatchObject({
      width: 800,
      height: 600,
    });
    for (const wrong of [
      '320',
      '320x',
      'x240',
      '320×240',
      '15x240',
      '320x15',
      '1921x240',
      '320x1081',
      ' 320x240',
    ]) {
      expect(error(base, { CAR_SECRET: 's', CAMERA_SIZE: wrong }, noFile)).toBe(
        'CAMERA_SIZE must be WIDTHxHEIGHT, 16–1920 by 16–1080 (e.g. 320x240)',
      );
    }
    const file = '{"camera": "v4l2", "video": {"device": "/dev/video2", "width": 480, "height": 360}}';
    expect(settings(['--drive', 'pigpio'], {}, file).video).toMatchObject({
      camera: 'v4l2',
      device: '/dev/video2',
      width: 480,
      height: 360,
    });
    expect(settings(['--camera', 'none'], {}, file).video.camera).toBe('none');
  });

  it('rejects a wrong camera in one line', () => {
    const withFile = (json: string) =>
      error([...base, '--config', 'c.json'], { CAR_SECRET: 's' }, files(json));
    expect(error([...base, '--camera', 'webcam'])).toMatch(
      /--camera must be one of sim, libcamera, v4l2, test, none/,
    );
    expect(error([...base, '--drive', 'pca9685', '--camera', 'sim'])).toMatch(
      /--camera sim needs --drive sim/,
    );
    expect(withFile('{"video": {"device": "/dev/video0 ! fakesink"}}')).toMatch(/video.device/);
    expect(withFile('{"video": {"framerate": 0}}')).toMatch(/video.framerate/);
    expect(withFile('{"video": {"width": 640.5}}')).toMatch(/whole number/);
  });
});
