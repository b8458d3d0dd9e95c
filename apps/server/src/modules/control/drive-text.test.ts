/**
 * The quick reader of drives against the usual way (JSON.parse, then the message's whole schema),
 * on the real tables' schemas: whatever text a client sends, the quick reader either leaves it to
 * the usual way or reads exactly the message the usual way would — never one the schema refuses.
 */
import { ControllerMessage, DriveChannelMessage } from '@telerace/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { messageTable } from '../../sockets/message-table.js';
import { QUICK_DRIVE, readDriveText } from './drive-text.js';

const controller = messageTable(
  ControllerMessage,
  {
    hello: () => {},
    drive: () => {},
    'controller-ping': () => {},
    auth: () => {},
    rtc_offer: () => {},
    rtc_candidate: () => {},
  },
  QUICK_DRIVE,
);
const channel = messageTable(DriveChannelMessage, { drive: () => {} }, QUICK_DRIVE);

/** What the usual way makes of `text`: the checked message, or null where it answers an error. */
function usual(text: string, schema: typeof ControllerMessage | typeof DriveChannelMessage): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** Numbers around and beyond the schemas' bounds, as doubles and as integers. */
const anyNumber = fc.oneof(
  fc.double({ min: -1, max: 1, noNaN: true }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(-0, 1, -1, 1.0000001, -1.0000001, 1e-7, 5e-324, 2 ** 53, 2 ** 53 - 1, 1e21),
  fc.integer({ min: -10, max: 2 ** 31 }),
  fc.nat(),
);

/** Drives written as the page writes them, and as a client might: another order, spaces, extra keys, other types. */
const driveTexts = fc.oneof(
  fc
    .record({ throttle: anyNumber, steer: anyNumber, seq: fc.option(anyNumber, { nil: undefined }) })
    .map(({ throttle, steer, seq }) =>
      JSON.stringify({ type: 'drive', throttle, steer, ...(seq === undefined ? {} : { seq }) }),
    ),
  fc
    .tuple(anyNumber, anyNumber, fc.nat())
    .map(([throttle, steer, seq]) => JSON.stringify({ steer, type: 'drive', seq, throttle })),
  fc
    .tuple(anyNumber, anyNumber)
    .map(([throttle, steer]) => JSON.stringify({ type: 'drive', throttle, steer }, null, 1)),
  fc
    .tuple(anyNumber, anyNumber, fc.nat(), fc.string())
    .map(([throttle, steer, seq, extra]) => JSON.stringify({ type: 'drive', throttle, steer, seq, extra })),
  fc
    .tuple(fc.constantFrom('Drive', 'driv', 'drive ', 'stop'), anyNumber, anyNumber)
    .map(([type, throttle, steer]) => JSON.stringify({ type, throttle, steer })),
  // Hand-made number spellings JSON allows or refuses.
  fc
    .tuple(
      fc.constantFrom(
        '0',
        '-0',
        '1',
        '-1',
        '0.5',
        '1.0',
        '1e0',
        '1E-3',
        '5e-1',
        '01',
        '.5',
        '1.',
        '+1',
        '0x1',
        'NaN',
      ),
      fc.constantFrom('0', '-0.25', '1e+0', '2', '-1.5', '00', '1e', 'Infinity', 'null', '"0.5"'),
      fc.constantFrom(
        '',
        ',"seq":0',
        ',"seq":7',
        ',"seq":1.0',
        ',"seq":1.5',
        ',"seq":-1',
        ',"seq":9007199254740992',
      ),
    )
    .map(([throttle, steer, seq]) => `{"type":"drive","throttle":${throttle},"steer":${steer}${seq}}`),
  fc.string(),
);

describe('the quick reader of drives', () => {
  it('reads exactly what JSON.parse and the schema read, or leaves the text to them', () => {
    fc.assert(
      fc.property(driveTexts, (text) => {
        for (const [table, schema] of [
          [controller, ControllerMessage],
          [channel, DriveChannelMessage],
        ] as const) {
          const quick = table.quick?.(text) ?? null;
          if (quick !== null) expect(quick).toEqual(usual(text, schema));
        }
      }),
      { numRuns: 5_000 },
    );
  });

  it('reads every drive as the page writes it (the relay takes the quick way for them)', () => {
    const unit = fc.double({ min: -1, max: 1, noNaN: true });
    fc.assert(
      fc.property(unit, unit, fc.option(fc.nat(), { nil: undefined }), (throttle, steer, seq) => {
        const text = JSON.stringify({
          type: 'drive',
          throttle,
          steer,
          ...(seq === undefined ? {} : { seq }),
        });
        expect(controller.quick?.(text)).toEqual(usual(text, ControllerMessage));
        if (seq !== undefined) expect(channel.quick?.(text)).toEqual(usual(text, DriveChannelMessage));
        // The channel's drives carry their number: without one the usual way words the error.
        else expect(channel.quick?.(text)).toBeNull();
      }),
      { numRuns: 2_000 },
    );
  });

  it('leaves values the schema refuses to the usual way, which answers the error', () => {
    for (const text of [
      '{"type":"drive","throttle":1.5,"steer":0}',
      '{"type":"drive","throttle":0,"steer":-2}',
      '{"type":"drive","throttle":0,"steer":0,"seq":-1}',
      '{"type":"drive","throttle":0,"steer":0,"seq":0.5}',
      '{"type":"drive","throttle":1e999,"steer":0}',
    ]) {
      expect(readDriveText(text)).not.toBeNull();
      expect(controller.quick?.(text)).toBeNull();
      expect(usual(text, ControllerMessage)).toBeNull();
    }
  });
});

describe('messageTable with a quick reader', () => {
  const read = () => null;
  const union = (field: z.ZodType) =>
    z.discriminatedUnion('type', [
      z.object({ type: z.literal('drive'), throttle: field, steer: z.number() }),
    ]);

  it('refuses a field or a check it cannot compare as zod does, at start-up', () => {
    for (const [field, refused] of [
      [z.string(), /reads numbers only, not throttle/],
      [z.number().multipleOf(2), /cannot check throttle's multiple_of/],
      [z.number().refine((value) => value > 0), /cannot check throttle's custom/],
    ] as const)
      expect(() => messageTable(union(field), { drive: () => {} }, { type: 'drive', read })).toThrow(refused);
  });

  it('compares exclusive and repeated bounds as zod does', () => {
    for (const schema of [
      union(z.number().gt(0).lt(1)),
      union(z.number().min(0.5).min(0).max(0.25).max(1)),
      union(z.number().min(0).gt(0).lte(1).lt(1)),
    ]) {
      const table = messageTable(schema, { drive: () => {} }, QUICK_DRIVE);
      for (const throttle of [0, 1, 0.5, 0.25, 0.3, 1e-9, -0])
        expect(table.quick?.(`{"type":"drive","throttle":${throttle},"steer":0}`) ?? null).toEqual(
          schema.safeParse({ type: 'drive', throttle, steer: 0 }).data ?? null,
        );
    }
  });

  it('refuses a reader for a type the union does not have', () => {
    expect(() =>
      messageTable(DriveChannelMessage, { drive: () => {} }, { type: 'stop' as 'drive', read: () => null }),
    ).toThrow(/No stop message/);
  });
});
