import { describe, expect, it } from 'vitest';
import { buildVideoPipeline, chooseEncoder, defaultBitrate, encodeElements } from './pipeline.js';

const TAIL =
  'videoconvert ! x264enc name=encoder tune=zerolatency speed-preset=ultrafast bitrate=800 vbv-buf-capacity=250 key-int-max=30 ! ' +
  'video/x-h264,profile=constrained-baseline ! identity name=sent silent=false ! rtph264pay pt=96 config-interval=-1 aggregate-mode=zero-latency ! ' +
  'udpsink host=127.0.0.1 port=5004 sync=false async=false';

describe('video pipeline', () => {
  it('builds the simulator pipeline of docs/video.md (the car’s camera)', () => {
    const { command, args } = buildVideoPipeline({ source: 'sim', host: '127.0.0.1', port: 5004 });
    expect(command).toBe('gst-launch-1.0');
    expect(args.join(' ')).toBe(
      `-v fdsrc fd=0 ! rawvideoparse width=640 height=480 format=rgba framerate=30/1 ! ${TAIL}`,
    );
  });

  it('substitutes size, host and port', () => {
    const { args } = buildVideoPipeline({
      source: 'sim',
      host: 'janus.local',
      port: 20000,
      width: 320,
      height: 240,
    });
    expect(args).toContain('width=320');
    expect(args).toContain('height=240');
    expect(args).toContain('host=janus.local');
    expect(args).toContain('port=20000');
    expect(buildVideoPipeline({ source: 'sim', host: '[::1]', port: 1 }).args).toContain('host=::1');
  });

  it('builds the test-pattern pipeline with the same tail', () => {
    const { args } = buildVideoPipeline({ source: 'test', host: '127.0.0.1', port: 5004 });
    expect(args.join(' ')).toBe(
      `-v videotestsrc is-live=true ! video/x-raw,width=640,height=480,framerate=30/1 ! ${TAIL}`,
    );
  });

  it('uses libcamerasrc with the hardware encoder by default, or x264 when asked', () => {
    const hw = buildVideoPipeline({
      source: 'libcamera',
      host: '10.0.0.2',
      port: 6000,
      width: 1280,
      height: 720,
    });
    expect(hw.args.slice(0, 6)).toEqual([
      '-v',
      'libcamerasrc',
      '!',
      'video/x-raw,width=1280,height=720,framerate=30/1',
      '!',
      'videoconvert',
    ]);
    expect(hw.args).toContain('v4l2h264enc');
    expect(hw.args).toContain(
      'extra-controls=controls,video_bitrate=1400000,h264_i_frame_period=30,repeat_sequence_header=1',
    );
    expect(hw.args).toContain('video/x-h264,level=(string)4,profile=constrained-baseline');
    expect(hw.args).not.toContain('x264enc');
    expect(hw.args.slice(-14).join(' ')).toBe(
      'identity name=sent silent=false ! rtph264pay pt=96 config-interval=-1 aggregate-mode=zero-latency ! udpsink host=10.0.0.2 port=6000 sync=false async=false',
    );
    const sw = buildVideoPipeline({ source: 'libcamera', host: '10.0.0.2', port: 6000, encoder: 'x264' });
    expect(sw.args).toContain('x264enc');
    // The runner (gst-runner.py) steers the encoder by this name, whichever it is.
    for (const { args } of [hw, sw]) {
      const encoder = args.findIndex((arg) => arg.endsWith('h264enc') || arg === 'x264enc');
      expect(args[encoder + 1]).toBe('name=encoder');
    }
    expect(sw.args).not.toContain('v4l2h264enc');
  });

  it('uses v4l2src with the given device', () => {
    const { args } = buildVideoPipeline({
      source: 'v4l2',
      host: '127.0.0.1',
      port: 5004,
      device: '/dev/video2',
    });
    expect(args.slice(0, 4)).toEqual(['-v', 'v4l2src', 'device=/dev/video2', '!']);
    expect(buildVideoPipeline({ source: 'v4l2', host: '127.0.0.1', port: 5004 }).args[2]).toBe(
      'device=/dev/video0',
    );
  });

  it('scales the default bitrate with the square root of the pixels per second, 800 kbit/s at 640×480 and 30 fps', () => {
    expect(defaultBitrate(640, 480, 30)).toBe(800);
    expect(defaultBitrate(480, 360, 30)).toBe(600);
    expect(defaultBitrate(480, 360, 60)).toBe(850);
    expect(defaultBitrate(640, 480, 60)).toBe(1150);
    expect(defaultBitrate(1280, 720, 30)).toBe(1400);
    expect(defaultBitrate(1280, 720, 60)).toBe(1950);
    expect(defaultBitrate(320, 240, 15)).toBe(300);
    expect(defaultBitrate(16, 16, 1)).toBe(50);
  });

  it('encodes 1280×720 at 60 fps with a keyframe a second and the bitrate of its size and rate', () => {
    const x264 = encodeElements('x264', { width: 1280, height: 720, framerate: 60 });
    expect(x264.join(' ')).toBe(
      'videoconvert ! x264enc name=encoder tune=zerolatency speed-preset=ultrafast bitrate=1950 vbv-buf-capacity=250 key-int-max=60 ! ' +
        'video/x-h264,profile=constrained-baseline ! identity name=sent silent=false',
    );
    const hw = encodeElements('v4l2h264', { width: 1280, height: 720, framerate: 60 });
    expect(hw).toContain(
      'extra-controls=controls,video_bitrate=1950000,h264_i_frame_period=60,repeat_sequence_header=1',
    );
    // Level 4 (MaxMBPS 245,760): 1280×720 at 60 fps is 216,000 macroblocks a second, over 3.1's 108,000.
    expect(hw).toContain('video/x-h264,level=(string)4,profile=constrained-baseline');
    // A configured bitrate wins, and the simulator's camera gets the same encoder settings.
    expect(encodeElements('x264', { width: 1280, height: 720, framerate: 60, bitrate: 3000 })).toContain(
      'bitrate=3000',
    );
    const sim = buildVideoPipeline({
      source: 'sim',
      host: '127.0.0.1',
      port: 5004,
      width: 480,
      height: 360,
      framerate: 60,
    }).args;
    expect(sim).toContain('framerate=60/1');
    expect(sim).toContain('bitrate=850');
    expect(sim).toContain('key-int-max=60');
  });

  it('picks the hardware encoder only when GStreamer has it', () => {
    expect(chooseEncoder((n) => n === 'v4l2h264enc')).toBe('v4l2h264');
    expect(chooseEncoder(() => false)).toBe('x264');
  });

  it('refuses values that could inject shell or pipeline syntax', () => {
    const base = { source: 'sim' as const, host: '127.0.0.1', port: 5004 };
    for (const host of ['a b', 'x;rm -rf /', '$(id)', 'h ! fakesink', 'host=evil', '', 'a..b', '`id`']) {
      expect(() => buildVideoPipeline({ ...base, host })).toThrow(/invalid host/);
    }
    for (const device of ['/dev/video0 ! fakesink', '/etc/passwd', '/dev/../etc', '/dev/$(id)']) {
      expect(() => buildVideoPipeline({ ...base, source: 'v4l2', device })).toThrow(/invalid device/);
    }
    expect(() => buildVideoPipeline({ ...base, port: 0 })).toThrow(RangeError);
    expect(() => buildVideoPipeline({ ...base, port: 70000 })).toThrow(RangeError);
    expect(() => buildVideoPipeline({ ...base, width: 640.5 })).toThrow(RangeError);
    expect(() => buildVideoPipeline({ ...base, source: 'usb' as never })).toThrow(/unknown source/);
  });

  it('keeps each token free of spaces and shell metacharacters', () => {
    for (const source of ['sim', 'test', 'libcamera', 'v4l2'] as const) {
      for (const arg of buildVideoPipeline({ source, host: 'janus', port: 5004 }).args) {
        expect(arg).not.toMatch(/[\s;&|`$<>'"\\]/);
      }
    }
  });
});
