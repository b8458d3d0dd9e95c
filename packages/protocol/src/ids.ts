/**
 * The one id of every row a client may name (cars, members, races, raffles…): the database's
 * `serial`/`integer` columns hold 1 … 2³¹−1, so an id past them is refused here (400 naming the
 * field) instead of reaching PostgreSQL (which answers "out of range", a 500).
 */
import { z } from 'zod';

/** The largest id a row can have (PostgreSQL `integer`). */
export const MAX_ID = 2 ** 31 - 1;

const bounded = (number: z.ZodNumber) => number.int().min(1).max(MAX_ID);

/** An id in a JSON body or a socket message. */
export const Id = bounded(z.number());
export type Id = z.infer<typeof Id>;

/** The same id written in a path or a query string (text, coerced). */
export const IdText = bounded(z.coerce.number());

/** `/…/{id}`: every route whose path names a row by its id. */
export const IdParams = z.object({ id: IdText });
export type IdParams = z.infer<typeof IdParams>;
