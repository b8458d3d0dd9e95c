import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { comparableLines, protocolDoc, protocolDocIn, SOCKETS } from './protocol-doc.js';
import { readSourceComments } from './source-comments.js';

// `npm run docs:protocol -w apps/server` rewrites the tables when one of these fails.
const document = readFileSync(resolve(import.meta.dirname, '../../../../docs/protocol.md'), 'utf8');
const generated = protocolDoc();

describe('docs/protocol.md', () => {
  it('holds the message tables the shared schemas give today', () => {
    expect(comparableLines(protocolDocIn(document))).toEqual(comparableLines(generated));
  });

  it.each(SOCKETS.flatMap((socket) => socket.sets.map((set) => [set.name, set.union] as const)))(
    'lists every message of %s',
    (_name, union) => {
      for (const option of union.options) expect(generated).toContain(`| \`${option.shape.type.value}\` |`);
    },
  );
});

describe('the protocol source comments', () => {
  const comments = readSourceComments();

  it('reads the comment of a union member, of its fields and of a shared payload’s fields', () => {
    expect(comments.members.get('ServerCarMessage.video-stop')).toMatch(/^Nobody drives the car any more/);
    expect(comments.members.get('ControllerMessage.auth')).toMatch(/refreshed access token/);
    expect(comments.keys.get('RaceState.countdown_value')).toMatch(/Seconds left in the countdown/);
    expect(comments.keys.get('SOCKET_CLOSE_CODES.replaced')).toMatch(/newer connection/);
    expect(comments.exported.get('SocketErrorMessage')).toMatch(/one error message of every JSON socket/);
  });
});
