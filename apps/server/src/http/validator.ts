/**
 * The validator of every route's params, query and body: the route's zod schema, then one rule no
 * schema says — text is text PostgreSQL can store. Its text type cannot hold the NUL character,
 * and its JSON (the audit log's details) refuses an unpaired surrogate (`\udfff`, which
 * JSON.stringify writes for one): the query failed, a 500 after whatever the handler did before
 * it. Refused here, it is a 400 naming the field, before the handler runs (found by
 * http/api-fuzz.test.ts: a raffle entry's display name, a car's name, a bio, a ticket
 * adjustment's request id).
 */
import type { FastifySchemaValidationError } from 'fastify';
import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const UNSTORABLE = [
  { holds: (text: string) => text.includes('\u0000'), message: 'must not contain the NUL character' },
  {
    holds: (text: string) => UNPAIRED_SURROGATE.test(text),
    message: 'must not contain an unpaired surrogate (not Unicode text)',
  },
];

/** The first string in `value` that cannot be stored: where (a JSON pointer, `/displayName`) and why. */
export function unstorableText(value: unknown, pointer = ''): { pointer: string; message: string } | null {
  if (typeof value === 'string') {
    const rule = UNSTORABLE.find(({ holds }) => holds(value));
    return rule ? { pointer, message: rule.message } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  for (const [key, child] of Object.entries(value)) {
    const found = unstorableText(child, `${pointer}/${key}`);
    if (found) return found;
  }
  return null;
}

/** What zod made of the input, checked for text that cannot be stored (what zod dropped reaches no handler). */
export const validatorCompiler: typeof zodValidatorCompiler = (route) => {
  const validate = zodValidatorCompiler(route);
  return (data) => {
    const result = validate(data) as { error?: FastifySchemaValidationError[]; value?: unknown };
    const found = result.error ? null : unstorableText(result.value);
    if (!found) return result;
    const error: FastifySchemaValidationError = {
      keyword: 'text',
      instancePath: found.pointer,
      schemaPath: '',
      params: {},
      message: found.message,
    };
    return { error: [error] };
  };
};
