/**
 * A socket's messages declared with their schemas and handlers together (Colyseus's shape):
 * `messageTable(ControllerMessage, { drive: (link, m) => …, auth: … })`. The types come from the
 * protocol's discriminated union, so there is no hand-written list to fall out of step, and the
 * compiler asks for a handler for every message type.
 *
 * A socket's hottest message (a driver's `drive`, 50 a second) may also be given a quick reader
 * (`quick`): it takes the message's usual text apart without JSON.parse, and each field it finds
 * is checked against that message's own zod schema — its number checks read once and compared
 * as plain numbers, so a drive allocates nothing more. Any other text — another
 * message, the same one written differently, a value the schema refuses — goes the usual way
 * (JSON.parse, then the whole schema), which also words the error. Issue 27: JSON.parse and the
 * object schema were a sixth of the relay's CPU per drive.
 */
import type { z } from 'zod';
import { type QuickRead, quickParser } from './quick-read.js';

type Message = { type: string };
type Handler<C, M> = (context: C, message: M) => unknown;

/** Each handler receives the socket's context (its link) and the parsed message of its type. */
export type MessageHandlers<C, U extends Message> = { [K in U['type']]: Handler<C, Extract<U, { type: K }>> };

export interface MessageTable<C> {
  /** `type → [schema, handler]`. */
  readonly byType: ReadonlyMap<string, readonly [z.ZodType, Handler<C, never>]>;
  /** The quick reader's message, checked by its schema, or null: parse the text the usual way. */
  readonly quick: ((text: string) => Message | null) | null;
}

/** The option of `union` whose `type` literal is each value. */
function optionsByType(union: z.ZodDiscriminatedUnion): Map<string, z.ZodType> {
  const byType = new Map<string, z.ZodType>();
  for (const option of union.options) {
    const shape = (option as z.ZodObject).shape as { type?: z.ZodLiteral<string> };
    for (const type of shape.type?.values ?? []) byType.set(type, option as z.ZodType);
  }
  return byType;
}

export function messageTable<C, U extends Message>(
  union: z.ZodDiscriminatedUnion & z.ZodType<U>,
  handlers: MessageHandlers<C, U>,
  quick?: QuickRead<U['type']>,
): MessageTable<C> {
  const byType = new Map<string, readonly [z.ZodType, Handler<C, never>]>();
  const options = optionsByType(union);
  for (const [type, schema] of options) {
    const handler = (handlers as Record<string, Handler<C, never>>)[type];
    if (handler) byType.set(type, [schema, handler]);
  }
  const quickOption = quick && options.get(quick.type);
  if (quick && !quickOption) throw new Error(`No ${quick.type} message for its quick reader`);
  return { byType, quick: quick && quickOption ? quickParser(quick.type, quickOption, quick.read) : null };
}
