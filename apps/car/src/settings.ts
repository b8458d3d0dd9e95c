/**
 * Everything the agent can be told, from the command line, the environment (`CAR_SECRET`) and a
 * JSON configuration file, validated before anything starts: a wrong value is one clear line.
 */

import { DRIVE_KINDS, type DriveKind, type PulseRange } from './drive/backend.js';
import { DEFAULT_SLEW_RATES, DEFAULT_TRIM_MAX, type SlewRates } from './drive/output.js';
import { DEFAULT_PCA9685_CONFIG, type Pca9685Config } from './drive/pca9685.js';
import { DEFAULT_PIGPIO_CONFIG, type PigpioConfig } from './drive/pigpio.js';
import { defaultBitrate, type VideoSource } from './video/pipeline.js';
import type { UplinkRepair } from './video/uplink.js';

/** Where the picture comes from; `none` streams nothing even when the server asks for video. */
export type CameraKind = VideoSource | 'none';
export const CAMERA_KINDS: readonly CameraKind[] = ['sim', 'libcamera', 'v4l2', 'test', 'none'];

export interface VideoSettings {
  /** Default: `sim` with the simulated drive, `libcamera` otherwise. */
  camera: CameraKind;
  /** The V4L2 device (`camera: v4l2`). */
  device: string;
  width: number;
  height: number;
  framerate: number;
  /** kbit/s. */
  bitrate: number;
  /** Loss repair on the uplink (video/uplink.ts): `auto`, `fec` (parity always) or `off`. */
  repair: UplinkRepair;
}

const REPAIRS: readonly UplinkRepair[] = ['auto', 'fec', 'off'];

/**
 * A real camera's defaults. The bitrate, unless `video.bitrate` gives it, follows the size and the
 * frame rate (`defaultBitrate`: 800 kbit/s here, 600 for the simulated camera's 480×360).
 */
export const DEFAULT_VIDEO = { device: '/dev/video0', width: 640, height: 480, framerate: 30 };
/**
 * The simulated camera's defaults: smaller, so several simulated cars, Janus and a browser fit on
 * a 2-core machine (the latency bench reads its timestamp strip at this size too).
 */
export const DEFAULT_SIM_VIDEO = { ...DEFAULT_VIDEO, width: 480, height: 360 };

export interface AgentSettings {
  server: string;
  carId: string;
  secret: string;
  drive: DriveKind;
  pca9685: Pca9685Config;
  pigpio: PigpioConfig;
  slew: SlewRates;
  /** Steering offset at trim ±50. */
  trimMax: number;
  /** Argument vectors run without a shell on `reboot` / `shutdown` (hardware drives only). */
  commands: { reboot: string[]; shutdown: string[] };
  video: VideoSettings;
  /** The simulated car's steering assist (sim/assist.ts); on unless `--assist off`. */
  assist: boolean;
  /** Offer the drive channel when the server answers them (issue 42); on unless `--drive-channel off`. */
  driveChannel: boolean;
}

export const DEFAULT_COMMANDS = {
  reboot: ['sudo', 'systemctl', 'reboot'],
  shutdown: ['sudo', 'systemctl', 'poweroff'],
};

/** A configuration problem, reported as one line. */
export class SettingsError extends Error {}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function section(file: Json, key: string): Json {
  const value = file[key];
  if (value === undefined) return {};
  if (!isObject(value)) throw new SettingsError(`config: "${key}" must be an object`);
  return value;
}

function numberAt(obj: Json, path: string, key: string, fallback: number, min: number, max: number): number {
  const value = obj[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new SettingsError(`config: "${path}${key}" must be a number from ${min} to ${max}`);
  }
  return value;
}

function intAt(obj: Json, path: string, key: string, fallback: number, min: number, max: number): number {
  const value = numberAt(obj, path, key, fallback, min, max);
  if (!Number.isInteger(value)) throw new SettingsError(`config: "${path}${key}" must be a whole number`);
  return value;
}

function pulses(obj: Json, path: string, fallback: PulseRange): PulseRange {
  const range = {
    minUs: numberAt(obj, path, 'minUs', fallback.minUs, 500, 2500),
    centerUs: numberAt(obj, path, 'centerUs', fallback.centerUs, 500, 2500),
    maxUs: numberAt(obj, path, 'maxUs', fallback.maxUs, 500, 2500),
  };
  const between = (range.centerUs - range.minUs) * (range.maxUs - range.centerUs) > 0;
  if (!between)
    throw new SettingsError(`config: "${path}centerUs" must lie strictly between minUs and maxUs`);
  return range;
}

function channel(obj: Json, name: 'steering' | 'throttle', base: Pca9685Config['steering']) {
  return {
    channel: intAt(obj, `pca9685.${name}.`, 'channel', base.channel, 0, 15),
    ...pulses(obj, `pca9685.${name}.`, base),
  };
}

function argv(obj: Json, key: string, fallback: string[]): string[] {
  const value = obj[key];
  if (value === undefined) return fallback;
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string' && v !== '')) {
    throw new SettingsError(`config: "commands.${key}" must be a non-empty array of strings (no shell)`);
  }
  return value as string[];
}

function stringAt(obj: Json, key: string): string | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new SettingsError(`config: "${key}" must be a string`);
  return value;
}

export interface SettingsInput {
  server?: string | undefined;
  car?: string | undefined;
  secret?: string | undefined;
  drive?: string | undefined;
  /** `--camera`, else the `CAMERA` environment variable. */
  camera?: string | undefined;
  /** `--assist on|off`. */
  assist?: string | undefined;
  /** `--drive-channel on|off`. */
  driveChannel?: string | undefined;
  /**
   * The `CAMERA_FRAMERATE` environment variable: the camera's frames per second over the file's
   * `video.framerate` (the server's simulated cars on a busy test machine).
   */
  framerate?: string | undefined;
  /**
   * The `CAMERA_SIZE` environment variable, `WIDTHxHEIGHT`: the picture's size over the file's
   * `video.width` and `video.height` (the server's simulated cars in the browser tests).
   */
  size?: string | undefined;
  /** The `VIDEO_REPAIR` environment variable over the file's `video.repair`. */
  repair?: string | undefined;
  /** The parsed configuration file, if any. */
  file?: unknown;
}

/** `VIDEO_REPAIR`, else the file's `video.repair`, else `auto`. */
function repairFrom(value: unknown): UplinkRepair {
  if (value === undefined) return 'auto';
  if (typeof value === 'string' && (REPAIRS as readonly string[]).includes(value))
    return value as UplinkRepair;
  throw new SettingsError(`video repair must be one of ${REPAIRS.join(', ')}`);
}

/** `CAMERA_FRAMERATE`, else the file's `video.framerate`, else the camera's default. */
function framerateFrom(input: SettingsInput, video: Json, fallback: number): number {
  if (input.framerate === undefined) return intAt(video, 'video.', 'framerate', fallback, 1, 60);
  const value = Number(input.framerate);
  if (!/^\d+$/.test(input.framerate) || value < 1 || value > 60) {
    throw new SettingsError('CAMERA_FRAMERATE must be a whole number from 1 to 60');
  }
  return value;
}

/** The picture's size in pixels, from the config file or `CAMERA_SIZE`. */
const WIDTH = { min: 16, max: 1920 };
const HEIGHT = { min: 16, max: 1080 };
const within = (value: number, { min, max }: { min: number; max: number }) => value >= min && value <= max;

/** `CAMERA_SIZE` (`WIDTHxHEIGHT`), else the file's `video.width` and `video.height`, else the camera's default. */
function sizeFrom(
  input: SettingsInput,
  video: Json,
  fallback: { width: number; height: number },
): { width: number; height: number } {
  if (input.size === undefined) {
    return {
      width: intAt(video, 'video.', 'width', fallback.width, WIDTH.min, WIDTH.max),
      height: intAt(video, 'video.', 'height', fallback.height, HEIGHT.min, HEIGHT.max),
    };
  }
  const found = /^(\d{1,4})x(\d{1,4})$/.exec(input.size);
  const width = Number(found?.[1]);
  const height = Number(found?.[2]);
  if (!found || !within(width, WIDTH) || !within(height, HEIGHT)) {
    throw new SettingsError(
      `CAMERA_SIZE must be WIDTHxHEIGHT, ${WIDTH.min}–${WIDTH.max} by ${HEIGHT.min}–${HEIGHT.max} (e.g. 320x240)`,
    );
  }
  return { width, height };
}

/** `--<flag> on|off`, or the file's `"<key>": true|false`; on by default. */
function switchFrom(given: string | undefined, flag: string, file: Json, key: string): boolean {
  if (given !== undefined) {
    if (given !== 'on' && given !== 'off') throw new SettingsError(`--${flag} must be on or off`);
    return given === 'on';
  }
  const value = file[key];
  if (value === undefined) return true;
  if (typeof value !== 'boolean') throw new SettingsError(`config: "${key}" must be true or false`);
  return value;
}

/** Merges command line (first), environment secret and file (last), then validates. */
export function resolveSettings(input: SettingsInput): AgentSettings {
  if (input.file !== undefined && !isObject(input.file)) {
    throw new SettingsError('config: the file must hold a JSON object');
  }
  const file: Json = input.file ?? {};

  const server = input.server ?? stringAt(file, 'server');
  if (!server) throw new SettingsError('missing --server (the server URL, e.g. https://race.example.com)');
  let protocol: string;
  try {
    protocol = new URL(server).protocol;
  } catch {
    throw new SettingsError(`--server is not a URL: ${server}`);
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(protocol)) {
    throw new SettingsError('--server must start with http://, https://, ws:// or wss://');
  }

  const fileCar = file.car;
  const carId = input.car ?? (typeof fileCar === 'number' ? String(fileCar) : stringAt(file, 'car'));
  if (!carId) throw new SettingsError('missing --car (the car id shown on the admin page)');
  if (!/^[1-9]\d{0,9}$/.test(carId)) throw new SettingsError('--car must be a positive whole number');

  const secret = input.secret ?? stringAt(file, 'secret');
  if (!secret) throw new SettingsError('missing car secret: set CAR_SECRET (preferred) or pass --secret');

  const drive = input.drive ?? stringAt(file, 'drive') ?? 'sim';
  if (!(DRIVE_KINDS as readonly string[]).includes(drive)) {
    throw new SettingsError(`--drive must be one of ${DRIVE_KINDS.join(', ')}`);
  }

  const camera = input.camera ?? stringAt(file, 'camera') ?? (drive === 'sim' ? 'sim' : 'libcamera');
  if (!(CAMERA_KINDS as readonly string[]).includes(camera)) {
    throw new SettingsError(`--camera must be one of ${CAMERA_KINDS.join(', ')}`);
  }
  if (camera === 'sim' && drive !== 'sim') {
    throw new SettingsError('--camera sim needs --drive sim (it films the simulated car)');
  }
  const video = section(file, 'video');
  const videoDefaults = camera === 'sim' ? DEFAULT_SIM_VIDEO : DEFAULT_VIDEO;
  const device = stringAt(video, 'device') ?? DEFAULT_VIDEO.device;
  if (!/^\/dev\/[A-Za-z0-9_./-]+$/.test(device) || device.includes('..')) {
    throw new SettingsError('config: "video.device" must be a device path such as /dev/video0');
  }

  const size = sizeFrom(input, video, videoDefaults);
  const framerate = framerateFrom(input, video, videoDefaults.framerate);

  const pca = section(file, 'pca9685');
  const pig = section(file, 'pigpio');
  const slew = section(file, 'slew');
  const commands = section(file, 'commands');
  const pigPin = (key: 'steeringPin' | 'throttlePin') =>
    intAt(pig, 'pigpio.', key, DEFAULT_PIGPIO_CONFIG[key], 0, 53);
  const settings: AgentSettings = {
    server,
    carId,
    secret,
    drive: drive as DriveKind,
    pca9685: {
      bus: intAt(pca, 'pca9685.', 'bus', DEFAULT_PCA9685_CONFIG.bus, 0, 31),
      address: intAt(pca, 'pca9685.', 'address', DEFAULT_PCA9685_CONFIG.address, 0x03, 0x77),
      frequencyHz: numberAt(pca, 'pca9685.', 'frequencyHz', DEFAULT_PCA9685_CONFIG.frequencyHz, 40, 200),
      steering: channel(section(pca, 'steering'), 'steering', DEFAULT_PCA9685_CONFIG.steering),
      throttle: channel(section(pca, 'throttle'), 'throttle', DEFAULT_PCA9685_CONFIG.throttle),
    },
    pigpio: {
      steeringPin: pigPin('steeringPin'),
      throttlePin: pigPin('throttlePin'),
      steering: pulses(section(pig, 'steering'), 'pigpio.steering.', DEFAULT_PIGPIO_CONFIG.steering),
      throttle: pulses(section(pig, 'throttle'), 'pigpio.throttle.', DEFAULT_PIGPIO_CONFIG.throttle),
    },
    slew: {
      throttlePerSecond: numberAt(
        slew,
        'slew.',
        'throttlePerSecond',
        DEFAULT_SLEW_RATES.throttlePerSecond,
        0.1,
        1000,
      ),
      steerPerSecond: numberAt(slew, 'slew.', 'steerPerSecond', DEFAULT_SLEW_RATES.steerPerSecond, 0.1, 1000),
    },
    trimMax: numberAt(file, '', 'trimMax', DEFAULT_TRIM_MAX, 0, 1),
    commands: {
      reboot: argv(commands, 'reboot', DEFAULT_COMMANDS.reboot),
      shutdown: argv(commands, 'shutdown', DEFAULT_COMMANDS.shutdown),
    },
    video: {
      camera: camera as CameraKind,
      device,
      ...size,
      framerate,
      bitrate: intAt(
        video,
        'video.',
        'bitrate',
        defaultBitrate(size.width, size.height, framerate),
        50,
        20_000,
      ),
      repair: repairFrom(input.repair ?? (video as Record<string, unknown> | undefined)?.repair),
    },
    assist: switchFrom(input.assist, 'assist', file, 'assist'),
    driveChannel: switchFrom(input.driveChannel, 'drive-channel', file, 'driveChannel'),
  };
  if (settings.pca9685.steering.channel === settings.pca9685.throttle.channel) {
    throw new SettingsError('config: pca9685 steering and throttle need different channels');
  }
  if (settings.pigpio.steeringPin === settings.pigpio.throttlePin) {
    throw new SettingsError('config: pigpio steering and throttle need different pins');
  }
  return settings;
}
