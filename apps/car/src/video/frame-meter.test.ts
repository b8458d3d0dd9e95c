import { describe, expect, it } from 'vitest';
import { FrameMeter } from './frame-meter.js';

/** What `gst-launch-1.0 -v` prints for one frame through `identity name=sent silent=false`. */
const frameLine = (bytes: number) =>
  `/GstPipeline:pipeline0/GstIdentity:sent: last-message = chain   ******* (sent:sink) (${bytes} bytes, dts: 1000:00:00.033333333, pts: 1000:00:00.033333333, duration: 0:00:00.033333333, offset: -1, offset_end: -1, flags: 00002200 marker delta-unit , meta: none) 0x564fb4f917e0\n`;
/** A keyframe's line (x264's first frame: no delta-unit flag). */
const keyframeLine = (bytes: number) =>
  `/GstPipeline:pipeline0/GstIdentity:sent: last-message = chain   ******* (sent:sink) (${bytes} bytes, dts: 1000:00:00.000000000, pts: 1000:00:00.000000000, duration: 0:00:00.033333333, offset: -1, offset_end: -1, flags: 00000240 discont marker , meta: none) 0x5633cd9707e0\n`;
const eventLine =
  '/GstPipeline:pipeline0/GstIdentity:sent: last-message = event   ******* (sent:sink) E (type: segment (17934), GstEventSegment, segment=(GstSegment)"segment, flags=(GstSegmentFlags)GST_SEGMENT_FLAG_NONE";) 0x7efcf8003ae0\n';
const capsLine =
  '/GstPipeline:pipeline0/GstRtpH264Pay:rtph264pay0.GstPad:src: caps = application/x-rtp, media=(string)video\n';

function meterAt(start = 0) {
  let now = start;
  const meter = new FrameMeter(() => now);
  return {
    meter,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('FrameMeter', () => {
  it('counts one frame per chain line of the counting element, not its events or other elements', () => {
    const { meter } = meterAt();
    meter.feed(capsLine + eventLine + frameLine(3450) + frameLine(1873) + eventLine);
    expect(meter.frames).toBe(2);
  });

  it('counts the keyframes among the frames (issue 43: keyframes on request)', () => {
    const { meter } = meterAt();
    meter.feed(eventLine + keyframeLine(7000) + frameLine(3865) + frameLine(4019) + keyframeLine(6900));
    expect(meter.frames).toBe(4);
    expect(meter.keyframes).toBe(2);
  });

  it('counts a line split across chunks once it is complete', () => {
    const { meter } = meterAt();
    const line = frameLine(1200);
    meter.feed(line.slice(0, 70));
    expect(meter.frames).toBe(0);
    meter.feed(line.slice(70, 140));
    expect(meter.frames).toBe(0);
    meter.feed(`${line.slice(140)}${frameLine(900).slice(0, 10)}`);
    expect(meter.frames).toBe(1);
  });

  it('does not grow without bound on a line that never ends', () => {
    const { meter } = meterAt();
    for (let i = 0; i < 1_000; i++) meter.feed('x'.repeat(10_000));
    meter.feed(`\n${frameLine(10)}`);
    expect(meter.frames).toBe(1);
  });

  it('reports nothing until a second has passed since it was first asked, then the rate over that second', () => {
    const { meter, advance } = meterAt(5_000);
    expect(meter.fps()).toBeUndefined();
    for (let i = 0; i < 30; i++) meter.feed(frameLine(1000));
    advance(999);
    expect(meter.fps()).toBeUndefined();
    advance(1);
    expect(meter.fps()).toBe(30);
  });

  it('keeps the last rate within a window and measures the next window from where the last ended', () => {
    const { meter, advance } = meterAt();
    meter.fps();
    for (let i = 0; i < 25; i++) meter.feed(frameLine(1000));
    advance(1_000);
    expect(meter.fps()).toBe(25);
    for (let i = 0; i < 10; i++) meter.feed(frameLine(1000));
    advance(500);
    expect(meter.fps()).toBe(25);
    advance(1_500);
    expect(meter.fps()).toBe(5);
  });

  it('rounds to a tenth and says 0 when the camera stalls', () => {
    const { meter, advance } = meterAt();
    meter.fps();
    for (let i = 0; i < 20; i++) meter.feed(frameLine(1000));
    advance(1_500);
    expect(meter.fps()).toBe(13.3);
    advance(2_000);
    expect(meter.fps()).toBe(0);
  });

  it('reports the kilobits per second of the frames sent over the same window (issue 42)', () => {
    const { meter, advance } = meterAt();
    expect(meter.kbps()).toBeUndefined();
    // 30 frames of 2,500 bytes and events (no bytes of video) in 2 s: 300 kbit/s.
    for (let i = 0; i < 30; i++) meter.feed(frameLine(2_500) + eventLine);
    advance(2_000);
    expect(meter.kbps()).toBe(300);
    expect(meter.fps()).toBe(15);
  });
});
