/**
 * GStreamer command lines for the car's camera feed (docs/video.md "The car's camera"): a source, then
 * H.264 (constrained baseline) in RTP payload type 96 to the Janus mountpoint's UDP port. Every
 * encoded frame passes a silent-less `identity` and the pipeline runs verbose, so the frames sent
 * can be counted on stdout (frame-meter.ts).
 *
 * The result is an argv array for `spawn(command, args)` without a shell: every element name,
 * property and `!` is its own argument, and every substituted value is validated first so nothing
 * can smuggle extra elements or properties into the pipeline.
 */

import { SENT_FRAMES_ELEMENT } from './frame-meter.js';

export type VideoSource =
  /** Raw RGBA frames from the simulator's renderer on the process's stdin. */
  | 'sim'
  /** The Raspberry Pi camera through libcamera. */
  | 'libcamera'
  /** A V4L2 device (USB camera or the Pi camera's legacy driver). */
  | 'v4l2'
  /** GStreamer's live test pattern. */
  | 'test';

/** `x264` is software; `v4l2h264` is the Raspberry Pi's hardware encoder. */
export type VideoEncoder = 'x264' | 'v4l2h264';

export interface PipelineOptions {
  source: VideoSource;
  /** Where Janus listens for this car's RTP (its mountpoint's port). */
  host: string;
  port: number;
  width?: number;
  height?: number;
  framerate?: number;
  /** kbit/s. */
  bitrate?: number;
  /** For `v4l2`. */
  device?: string;
  /** Default: `x264` for the simulator and the test pattern, else `v4l2h264`. */
  encoder?: VideoEncoder;
}

export interface GstCommand {
  command: string;
  args: string[];
}

export const GST_LAUNCH = 'gst-launch-1.0';

/** The pipeline's picture and bitrate when none is given. */
export const DEFAULT_WIDTH = 640;
export const DEFAULT_HEIGHT = 480;
export const DEFAULT_FRAMERATE = 30;

const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$|^\[?[0-9A-Fa-f:.]+\]?$/;
const DEVICE = /^\/dev\/[A-Za-z0-9_./-]+$/;

/** kbit/s: the bitrates a pipeline accepts, at start (`bitrate`) and while it runs (encoder-control.ts). */
export const MIN_BITRATE = 50;
export const MAX_BITRATE = 50_000;

/**
 * The encoder element's name in every pipeline: the runner (gst-runner.py) finds it by this name
 * to change its bitrate and force keyframes while it plays.
 */
export const ENCODER_ELEMENT = 'encoder';

function int(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`video pipeline: ${name} must be an integer ${min}…${max}, got ${value}`);
  }
  return value;
}

/** Picks the hardware encoder when GStreamer has it (e.g. `hasElement` from `gst-inspect-1.0 NAME`). */
export function chooseEncoder(hasElement: (name: string) => boolean): VideoEncoder {
  return hasElement('v4l2h264enc') ? 'v4l2h264' : 'x264';
}

/** The camera part of a pipeline: what `telerace-car doctor` counts frames of (docs/car.md). */
export type SourceOptions = Pick<PipelineOptions, 'source' | 'width' | 'height' | 'framerate' | 'device'>;

/** The source's elements, up to raw frames of the configured size and rate (validated). */
export function sourceElements(options: SourceOptions): string[] {
  const width = int('width', options.width ?? DEFAULT_WIDTH, 16, 4096);
  const height = int('height', options.height ?? DEFAULT_HEIGHT, 16, 4096);
  const fps = int('framerate', options.framerate ?? DEFAULT_FRAMERATE, 1, 120);
  const rawCaps = `video/x-raw,width=${width},height=${height},framerate=${fps}/1`;
  switch (options.source) {
    case 'sim':
      return [
        'fdsrc',
        'fd=0',
        '!',
        'rawvideoparse',
        `width=${width}`,
        `height=${height}`,
        'format=rgba',
        `framerate=${fps}/1`,
      ];
    case 'test':
      return ['videotestsrc', 'is-live=true', '!', rawCaps];
    case 'libcamera':
      return ['libcamerasrc', '!', rawCaps];
    case 'v4l2': {
      const device = options.device ?? '/dev/video0';
      if (!DEVICE.test(device) || device.includes('..')) {
        throw new Error(`video pipeline: invalid device ${JSON.stringify(device)}`);
      }
      return ['v4l2src', `device=${device}`, '!', rawCaps];
    }
    default:
      throw new Error(`video pipeline: unknown source ${String(options.source)}`);
  }
}

/** The encoder a source gets when none is chosen: x264 for the simulator and the test pattern. */
export function defaultEncoder(source: VideoSource): VideoEncoder {
  return source === 'sim' || source === 'test' ? 'x264' : 'v4l2h264';
}

/** The bitrate the default scales from: 800 kbit/s for 640×480 at 30 fps, as a real car has always sent. */
const REFERENCE_BITRATE = { kbps: 800, pixelsPerSecond: 640 * 480 * 30 };

/**
 * The bitrate (kbit/s) for a picture when none is configured: 800 kbit/s at 640×480 and 30 fps,
 * scaled by the square root of the pixels per second, to the nearest 50 — 600 at 480×360 (the
 * simulated camera), 1150 at 640×480 and 60 fps, 1400 at 1280×720 and 30 fps, 1950 at 1280×720 and
 * 60 fps. H.264 spends fewer bits per pixel as the picture grows and fewer per frame as frames come
 * closer together, so doubling either needs about 1.4 times the bits for the same picture, not twice.
 */
export function defaultBitrate(width: number, height: number, framerate: number): number {
  const scale = Math.sqrt((width * height * framerate) / REFERENCE_BITRATE.pixelsPerSecond);
  return Math.max(50, Math.round((REFERENCE_BITRATE.kbps * scale) / 50) * 50);
}

/**
 * Raw frames in, H.264 (constrained baseline) out, then the frame-counting `identity`
 * (frame-meter.ts): the pipeline's middle, shared by the camera stream and the doctor.
 *
 * x264's `tune=zerolatency` already does what 60 fps needs: no B-frames, no rate-control or sync
 * lookahead, no macroblock tree, each frame cut into slices encoded in parallel (x264 reports
 * `bframes=0 rc_lookahead=0 mbtree=0 sliced_threads=1 threads=2` on two cores), so setting them
 * again would change nothing; with `ultrafast` it holds 60 fps at 1280×720 on two cores
 * (docs/car.md). The hardware encoder's level 4 allows 1280×720 at 60 fps (level 3.1 stops at 30)
 * and 1920×1080 at 30. A keyframe every second at any rate; the bitrate, when not given, from the
 * size and rate (`defaultBitrate`).
 */
export function encodeElements(
  encoder: VideoEncoder,
  options: { bitrate?: number; framerate?: number; width?: number; height?: number },
): string[] {
  const fps = int('framerate', options.framerate ?? DEFAULT_FRAMERATE, 1, 120);
  const bitrate = int(
    'bitrate',
    options.bitrate ?? defaultBitrate(options.width ?? DEFAULT_WIDTH, options.height ?? DEFAULT_HEIGHT, fps),
    MIN_BITRATE,
    MAX_BITRATE,
  );
  const encode =
    encoder === 'x264'
      ? [
          'x264enc',
          `name=${ENCODER_ELEMENT}`,
          'tune=zerolatency',
          'speed-preset=ultrafast',
          `bitrate=${bitrate}`,
          // A quarter second of rate-control buffer, not x264enc's 600 ms: after a stretch under
          // its bitrate (a narrow uplink) the encoder may otherwise burst 600 ms' worth at once.
          'vbv-buf-capacity=250',
          `key-int-max=${fps}`,
          '!',
          'video/x-h264,profile=constrained-baseline',
        ]
      : [
          'v4l2h264enc',
          `name=${ENCODER_ELEMENT}`,
          `extra-controls=controls,video_bitrate=${bitrate * 1000},h264_i_frame_period=${fps},repeat_sequence_header=1`,
          '!',
          'video/x-h264,level=(string)4,profile=constrained-baseline',
        ];
  return ['videoconvert', '!', ...encode, '!', 'identity', `name=${SENT_FRAMES_ELEMENT}`, 'silent=false'];
}

/** A host name or IP literal (brackets allowed around IPv6), without them; throws otherwise. */
export function validHost(host: string): string {
  if (!HOST.test(host) || host.includes('..')) {
    throw new Error(`video pipeline: invalid host ${JSON.stringify(host)}`);
  }
  return host.replace(/^\[|\]$/g, '');
}

export function buildVideoPipeline(options: PipelineOptions): GstCommand {
  const port = int('port', options.port, 1, 65_535);
  const host = validHost(options.host);
  const source = sourceElements(options);
  const encoder = options.encoder ?? defaultEncoder(options.source);
  const encode = encodeElements(encoder, options);

  return {
    command: GST_LAUNCH,
    args: [
      '-v',
      ...source,
      '!',
      ...encode,
      '!',
      'rtph264pay',
      'pt=96',
      'config-interval=-1',
      'aggregate-mode=zero-latency',
      '!',
      'udpsink',
      `host=${host}`,
      `port=${port}`,
      'sync=false',
      'async=false',
    ],
  };
}
