/**
 * `npm run docs:protocol -w apps/server`: rewrites docs/protocol.md's message tables from the
 * shared schemas, between the `protocol:start` and `protocol:end` markers (src/docs/protocol-doc.test.ts
 * checks them).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { protocolDoc, withProtocolDoc } from '../src/docs/protocol-doc.js';

const DOCUMENT = resolve(import.meta.dirname, '../../../docs/protocol.md');

writeFileSync(DOCUMENT, withProtocolDoc(readFileSync(DOCUMENT, 'utf8'), protocolDoc()));
console.info('docs/protocol.md: message tables written');
