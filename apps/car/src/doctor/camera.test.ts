/**
 * Check 7 on its own, with real GStreamer: the simulated camera's whole pipeline (SimCamera, in the
 * runner) steered as the agent steers it. doctor.test.ts runs it for the test pattern through the
 * real `telerace-car doctor`; docs/car.md shows the lines.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_VIDEO, type VideoSettings } from '../settings.js';
import { checkEncoder } from './camera.js';

describe('doctor check 7 (encoder), real GStreamer', () => {
  it('the simulated camera: its frame rate, its bitrate set and a keyframe on request', async () => {
    const video: VideoSettings = {
      ...DEFAULT_SIM_VIDEO,
      camera: 'sim',
      width: 160,
      height: 120,
      bitrate: 300,
      repair: 'auto',
    };
    const result = await checkEncoder(video);
    expect(result.detail).toMatch(
      /^x264enc \d+\.\d fps at 160×120 \(configured 30\), 300 kbit\/s, keyframe on request in \d+ ms$/,
    );
    expect(result.status).toBe('pass');
  });

  it('fails without GStreamer for Python (the agent streams through gst-launch-1.0 then, unsteered), naming the packages', async () => {
    const video: VideoSettings = {
      ...DEFAULT_SIM_VIDEO,
      camera: 'test',
      width: 160,
      height: 120,
      bitrate: 300,
      repair: 'auto',
    };
    const why =
      'ERROR: GStreamer for Python is missing (No module named gi): sudo apt-get install python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0';
    const result = await checkEncoder(video, { runnerMissing: async () => why });
    expect(result).toEqual({
      status: 'fail',
      detail: expect.stringMatching(
        /^x264enc \d+\.\d fps at 160×120 \(configured 30\), 300 kbit\/s, but no run-time control \(keyframes on request, bitrate\): GStreamer for Python is missing \(No module named gi\)$/,
      ),
      fix: 'sudo apt-get install python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 (docs/car.md "Video")',
    });
  });
});
