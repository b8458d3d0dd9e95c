/**
 * The relay's quick reader of a drive (sockets/quick-read.ts): a driver's drive as the page
 * writes it — `{"type":"drive","throttle":…,"steer":…,"seq":…}`, JSON.stringify's text, `seq`
 * optional — taken apart by one regular expression instead of JSON.parse. It only finds the
 * numbers: the table checks each one against the drive's schema. Any other spelling (spaces, another key order, an
 * extra key) is left to JSON.parse and the whole schema, so nothing a client may send changes
 * meaning (drive-text.test.ts compares the two on generated texts).
 */
import type { FieldReader, QuickRead } from '../../sockets/quick-read.js';

/** A JSON number literal; Number() reads every one of them as JSON.parse does. */
const NUMBER = '(-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)';

const DRIVE_TEXT = new RegExp(
  `^\\{"type":"drive","throttle":${NUMBER},"steer":${NUMBER}(?:,"seq":${NUMBER})?\\}$`,
);

export const readDriveText: FieldReader = (text) => {
  const found = DRIVE_TEXT.exec(text);
  if (!found) return null;
  const [, throttle, steer, seq] = found;
  return seq === undefined
    ? { type: 'drive', throttle: Number(throttle), steer: Number(steer) }
    : { type: 'drive', throttle: Number(throttle), steer: Number(steer), seq: Number(seq) };
};

/** For messageTable: drives read quickly, on the control socket and on the drive channel. */
export const QUICK_DRIVE: QuickRead<'drive'> = { type: 'drive', read: readDriveText };
