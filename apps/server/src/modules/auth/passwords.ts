/**
 * Password hashing (argon2id, OWASP's minimum: 19 MiB, 2 passes, 1 lane) and the rules a new
 * password must meet: 8–128 characters (the schema checks length) and not one of the 1,000 most
 * common passwords. No composition rules (NIST SP 800-63B).
 */
import { hash, verify } from '@node-rs/argon2';
import { ERROR_KEYS } from '@telerace/protocol';
import { dictionary } from '@zxcvbn-ts/language-common';
import { DomainError } from '../../domain-error.js';

const ARGON2ID = 2; // @node-rs/argon2's Algorithm.Argon2id (a const enum, so not importable here)
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** The list is ranked by frequency; its head is the "most common" list. */
const COMMON_PASSWORDS = new Set(dictionary['passwords-common'].slice(0, 1000).map((p) => p.toLowerCase()));

export function isCommonPassword(password: string): boolean {
  return COMMON_PASSWORDS.has(password.toLowerCase());
}

/** Throws the client-facing error when a chosen password is too common. */
export function assertAcceptablePassword(password: string): void {
  if (isCommonPassword(password)) {
    throw new DomainError(
      'invalid',
      'This password is too common. Please choose another one.',
      ERROR_KEYS.passwordTooCommon,
    );
  }
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/**
 * A real hash of a random password: verifying against it when the e-mail is unknown makes a
 * failed login take as long whether or not the account exists.
 */
export const DUMMY_PASSWORD_HASH = hash(crypto.randomUUID(), OPTIONS);
