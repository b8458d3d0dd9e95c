/**
 * The quick reader of a socket's hottest message (message-table.ts): the reader takes the
 * message's usual text apart without JSON.parse, and each field it finds is checked against the
 * message's own zod schema — its number checks read from the schema once and compared as plain
 * numbers, so reading a drive allocates nothing more than the message. Issue 27: JSON.parse and
 * the object schema were a sixth of the relay's CPU per drive.
 */
import type { z } from 'zod';

type Message = { type: string };

/**
 * One message type's usual text read without JSON.parse: the message as written (its `type`
 * included, a missing optional field left out, no key the schema does not have), or null for
 * any text it does not recognise. It only reads; the table checks every field against the
 * message's schema.
 */
export type FieldReader = (text: string) => ({ type: string } & Record<string, unknown>) | null;

/** A quick reader for one message type (`type`) of the union. */
export interface QuickRead<T extends string = string> {
  type: T;
  read: FieldReader;
}

/** A number field's zod checks as plain comparisons (checking a drive allocates nothing). */
interface NumberField {
  key: string;
  optional: boolean;
  min: number;
  minInclusive: boolean;
  max: number;
  maxInclusive: boolean;
  safeInteger: boolean;
}

type ZodDef = {
  type: string;
  innerType?: { _zod: { def: ZodDef } };
  checks?: { _zod: { def: { check: string; value?: number; inclusive?: boolean; format?: string } } }[];
};

/**
 * The checks of `schema` (a number, maybe optional) as a NumberField: what z.number() checks
 * (a finite number) and the kinds of check the drive's schema uses — bounds and `.int()`. Any
 * other kind of field or check throws, so a schema grown beyond them stops the server at start-up
 * instead of being checked less here than by zod (drive-text.test.ts compares the two).
 */
function numberField(type: string, key: string, schema: z.ZodType): NumberField {
  let def = (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
  const optional = def.type === 'optional';
  if (optional && def.innerType) def = def.innerType._zod.def;
  if (def.type !== 'number') throw new Error(`The quick reader of ${type} reads numbers only, not ${key}`);
  const field: NumberField = {
    key,
    optional,
    min: Number.NEGATIVE_INFINITY,
    minInclusive: true,
    max: Number.POSITIVE_INFINITY,
    maxInclusive: true,
    safeInteger: false,
  };
  for (const { _zod } of def.checks ?? []) {
    const check = _zod.def;
    // Several bounds of a side (`.min(0).min(1)`): zod checks each, so the tightest one holds.
    if (check.check === 'greater_than' && typeof check.value === 'number') {
      if (check.value > field.min || (check.value === field.min && !check.inclusive)) {
        field.min = check.value;
        field.minInclusive = check.inclusive === true;
      }
    } else if (check.check === 'less_than' && typeof check.value === 'number') {
      if (check.value < field.max || (check.value === field.max && !check.inclusive)) {
        field.max = check.value;
        field.maxInclusive = check.inclusive === true;
      }
    } else if (check.check === 'number_format' && check.format === 'safeint') field.safeInteger = true;
    else throw new Error(`The quick reader of ${type} cannot check ${key}'s ${check.check}`);
  }
  return field;
}

function passes(field: NumberField, value: unknown): boolean {
  if (value === undefined) return field.optional;
  if (typeof value !== 'number' || !Number.isFinite(value)) return false;
  if (field.minInclusive ? value < field.min : value <= field.min) return false;
  if (field.maxInclusive ? value > field.max : value >= field.max) return false;
  return !field.safeInteger || Number.isSafeInteger(value);
}

/**
 * The reader's message, checked field by field as the option's object schema checks it (its
 * numbers compiled from the schema once, above). Only for a plain object (no object-wide
 * refinement, no catch-all for unknown keys): anything more could accept what the whole schema
 * refuses.
 */
export function quickParser(
  type: string,
  option: z.ZodType,
  read: FieldReader,
): (text: string) => Message | null {
  const def = (option as z.ZodObject)._zod.def;
  if (def.type !== 'object' || def.checks?.length || def.catchall)
    throw new Error(`The quick reader of ${type} needs a plain object schema`);
  const fields = Object.entries((option as z.ZodObject).shape)
    .filter(([key]) => key !== 'type')
    .map(([key, schema]) => numberField(type, key, schema as z.ZodType));
  return (text) => {
    const message = read(text);
    if (!message || message.type !== type) return null;
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i] as NumberField;
      if (!passes(field, message[field.key])) return null;
    }
    return message;
  };
}
