/**
 * A socket's messages declared with their schemas and handlers together (Colyseus's shape):
 * `messageTable(ControllerMessage, { drive: (link, m) => …, auth: … })`. The types come from the
 * protocol's discriminated union, so there is no hand-written list to fall out of step, and the
 * compiler asks for a handler for every message type.
 *
 * A socket's hottest message (a driver's `drive`, 50 a second) may also be given a quick reader
 * (`quick`): it takes the message's usual text apart without JSON.parse, and each field it finds
 * is still checked by that message's own zod schema, field by field. Any other text — another
 * message, the same one written differently, a value the schema refuses — goes the usual way
 * (JSON.parse, then the whole schema), which also words the error. Issue 27: JSON.parse and the
 * object schema were a sixth of the relay's CPU per drive.
 */
import type { z } from 'zod';

type Message = { type: string };
type Handler<C, M> = (context: C, message: M) => unknown;

/** Each handler receives the socket's context (its link) and the parsed message of its type. */
export type MessageHandlers<C, U extends Message> = { [K in U['type']]: Handler<C, Extract<U, { type: K }>> };

/**
 * The fields of one message type's usual text (its `type` known from the text), or null for any
 * text it does not recognise. It only reads; the message's schema checks every value.
 */
export type FieldReader = (text: string) => Record<string, unknown> | null;

/** A quick reader for one message type (`type`) of the union. */
export interface QuickRead<T extends string = string> {
  type: T;
  read: FieldReader;
}

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

/**
 * The message a quick reader's fields make, checked as the option's object schema would check it:
 * each field by its own schema (a missing optional field stays missing, as in the object's
 * output). Only for a plain object (no object-wide refinement, no catch-all for unknown keys):
 * anything more could accept what the whole schema refuses.
 */
function quickParser(type: string, option: z.ZodType, read: FieldReader): (text: string) => Message | null {
  const def = (option as z.ZodObject)._zod.def;
  if (def.type !== 'object' || def.checks?.length || def.catchall)
    throw new Error(`The quick reader of ${type} needs a plain object schema`);
  const fields = Object.entries((option as z.ZodObject).shape).filter(([key]) => key !== 'type');
  return (text) => {
    const values = read(text);
    if (!values) return null;
    const message: Record<string, unknown> = { type };
    for (const [key, schema] of fields) {
      const checked = (schema as z.ZodType).safeParse(values[key]);
      if (!checked.success) return null;
      if (checked.data !== undefined) message[key] = checked.data;
    }
    return message as Message;
  };
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
