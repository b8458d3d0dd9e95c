import { describe, expect, it } from 'vitest';
import { MAX_FRAME_LENGTH, parseZroundFrame, ZroundParser } from './zround-parser.js';

describe('ZRound frames', () => {
  it('reads a lap with a two-digit transponder and no comma', () => {
    expect(parseZroundFrame('L0A0003E8')).toEqual({ type: 'lap', transponder: 'a', time: 1000 });
  });

  it('reads a lap with a transponder of any length before a comma', () => {
    expect(parseZroundFrame('L1F40,1B')).toEqual({ type: 'lap', transponder: '1f40', time: 27 });
    expect(parseZroundFrame('L7,ff')).toEqual({ type: 'lap', transponder: '7', time: 255 });
  });

  it('reads the clock, the acknowledgement and the race commands', () => {
    expect(parseZroundFrame('T2710')).toEqual({ type: 'clock', time: 10_000 });
    expect(parseZroundFrame('A')).toEqual({ type: 'ack' });
    expect(parseZroundFrame('I')).toEqual({ type: 'start' });
    expect(parseZroundFrame('F')).toEqual({ type: 'stop' });
    expect(parseZroundFrame('C')).toEqual({ type: 'startup' });
  });

  it.each([
    ['', 'empty'],
    ['L', 'a lap without anything'],
    ['L0A', 'a lap without a time'],
    ['L0AXYZ', 'a time that is not hexadecimal'],
    ['L,10', 'an empty transponder'],
    ['LZZ10', 'a transponder that is not hexadecimal'],
    ['L0A-5', 'a negative time'],
    ['L0A12345678901234', 'a time too long to be exact'],
    ['T', 'a clock without a time'],
    ['Tabc.d', 'a clock with a fraction'],
    ['Ax', 'an acknowledgement with a tail'],
    ['Q12', 'an unknown code'],
  ])('marks %j (%s) as malformed', (body) => {
    expect(parseZroundFrame(body).type).toBe('malformed');
  });
});

describe('ZroundParser', () => {
  it('joins a frame split across chunks, even one character at a time', () => {
    const parser = new ZroundParser();
    const frames = [...'%L0A0003E8&'].flatMap((char) => parser.push(char));
    expect(frames).toEqual([{ type: 'lap', transponder: 'a', time: 1000 }]);
  });

  it('returns several frames of one chunk in order', () => {
    const parser = new ZroundParser();
    expect(parser.push('%T10&%L01,20&%L0230&')).toEqual([
      { type: 'clock', time: 16 },
      { type: 'lap', transponder: '1', time: 32 },
      { type: 'lap', transponder: '2', time: 48 },
    ]);
  });

  it('skips garbage between frames and keeps the frames around it', () => {
    const parser = new ZroundParser();
    expect(parser.push('\r\nnoise&&%L0110&\r\n##%L02')).toEqual([
      { type: 'lap', transponder: '1', time: 16 },
    ]);
    expect(parser.push('20&junk')).toEqual([{ type: 'lap', transponder: '2', time: 32 }]);
  });

  it('reports a malformed frame and goes on with the next', () => {
    const parser = new ZroundParser();
    expect(parser.push('%Lxx&%L0110&')).toEqual([
      { type: 'malformed', text: 'Lxx' },
      { type: 'lap', transponder: '1', time: 16 },
    ]);
  });

  it('drops an unfinished frame when a new one starts', () => {
    const parser = new ZroundParser();
    expect(parser.push('%L01%L0220&')).toEqual([
      { type: 'malformed', text: 'L01' },
      { type: 'lap', transponder: '2', time: 32 },
    ]);
  });

  it('holds at most MAX_FRAME_LENGTH characters of a frame that never ends', () => {
    const parser = new ZroundParser();
    const megabyte = 'F'.repeat(1024 * 1024);
    const frames = parser.push(`%L01${megabyte}`);
    expect(parser.pendingLength).toBeLessThanOrEqual(MAX_FRAME_LENGTH);
    expect(frames).toHaveLength(1);
    expect(frames[0]?.type).toBe('malformed');
    for (let i = 0; i < 8; i += 1) parser.push(megabyte);
    expect(parser.pendingLength).toBeLessThanOrEqual(MAX_FRAME_LENGTH);
    // The end of the runaway frame is skipped; the next real frame is read.
    expect(parser.push('&%L0110&')).toEqual([{ type: 'lap', transponder: '1', time: 16 }]);
  });

  it('forgets a partial frame on reset (a new connection)', () => {
    const parser = new ZroundParser();
    parser.push('%L01');
    parser.reset();
    expect(parser.push('10&%L0220&')).toEqual([{ type: 'lap', transponder: '2', time: 32 }]);
  });
});
