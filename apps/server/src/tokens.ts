/**
 * Opaque secrets handed to clients (refresh, reset, control and car tokens, sign-in codes) and
 * the one form the database keeps of them. Shared by every module that issues such a token.
 */
import { createHash, randomBytes } from 'node:crypto';

/** A new opaque secret: 256 random bits, base64url (43 characters). */
export function newOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database keeps of a token: its SHA-256 (hex). The raw value is never stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
