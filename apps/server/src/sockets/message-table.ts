/**
 * A socket's messages declared with their schemas and handlers together (Colyseus's shape):
 * `messageTable(ControllerMessage, { drive: (link, m) => …, auth: … })`. The types come from the
 * protocol's discriminated union, so there is no hand-written list to fall out of step, and the
 * compiler asks for a handler for every message type.
 */
import type { z } from 'zod';

type Message = { type: string };
type Handler<C, M> = (context: C, message: M) => unknown;

/** Each handler receives the socket's context (its link) and the parsed message of its type. */
export type MessageHandlers<C, U extends Message> = { [K in U['type']]: Handler<C, Extract<U, { type: K }>> };

/** `type → [schema, handler]`. */
export type MessageTable<C> = ReadonlyMap<string, readonly [z.ZodType, Handler<C, never>]>;

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
): MessageTable<C> {
  const table = new Map<string, readonly [z.ZodType, Handler<C, never>]>();
  for (const [type, schema] of optionsByType(union)) {
    const handler = (handlers as Record<string, Handler<C, never>>)[type];
    if (handler) table.set(type, [schema, handler]);
  }
  return table;
}
