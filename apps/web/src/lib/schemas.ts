/**
 * Parses answers with the shared zod schemas, fetched the first time one is needed: zod and the
 * protocol's schemas (about 30 KB gzip) stay out of the first download, and a signed-out visitor of
 * the landing page never fetches them (issue 11 §4). Modules of the first download parse through
 * here; pages loaded when shown import their schemas directly.
 */
import type { z } from 'zod';
import type * as FirstPageSchemas from './first-page-schemas';

type Schemas = typeof FirstPageSchemas;
export type SchemaName = keyof Schemas;

/** `schema.parse(body)` with the shared schema called `name`; rejects as `parse` throws. */
export async function parseWith<N extends SchemaName>(name: N, body: unknown): Promise<z.output<Schemas[N]>> {
  const schemas: Schemas = await import('./first-page-schemas');
  return schemas[name].parse(body) as z.output<Schemas[N]>;
}
