/**
 * The messages every JSON socket shares (the error, the browser's hello, the version refusal), as
 * zod schemas: kept apart from sockets.ts's constants so the web app's first page, which reads
 * those constants, does not carry zod.
 */
import { z } from 'zod';
import { INCOMPATIBLE_REASONS } from './sockets.js';

/**
 * The one error message of every JSON socket, shaped like the REST error body: `errorKey` is an
 * ERROR_KEYS i18n key, `error` an English text for logs.
 */
export const SocketErrorMessage = z.object({
  type: z.literal('error'),
  error: z.string(),
  errorKey: z.string(),
});
export type SocketErrorMessage = z.infer<typeof SocketErrorMessage>;

/**
 * The browser's first message on the control and event sockets: the protocol it speaks. One
 * outside the supported range is answered `incompatible`; the page then asks to be reloaded.
 */
export const BrowserHello = z.object({
  type: z.literal('hello'),
  protocolVersion: z.number().int(),
});
export type BrowserHello = z.infer<typeof BrowserHello>;

/**
 * The client's protocol version is outside the supported range (`supported`); the socket closes
 * next (4002).
 */
export const IncompatibleMessage = z.object({
  type: z.literal('incompatible'),
  reason: z.enum(INCOMPATIBLE_REASONS),
  supported: z.object({ min: z.number().int(), max: z.number().int() }),
});
export type IncompatibleMessage = z.infer<typeof IncompatibleMessage>;
