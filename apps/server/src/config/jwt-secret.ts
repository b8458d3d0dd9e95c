/**
 * The JWT secret generated when JWT_SECRET is unset. It is kept on disk so a restart does not sign
 * everybody out.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, configError, type LoadOptions } from './define.js';

export const JWT_SECRET_MIN_LENGTH = 32;
const JWT_SECRET_FILE = 'jwt-secret';

/**
 * `wx` makes two processes starting at once agree on the first one written instead of overwriting
 * each other. A dry run reads the file but never writes it (a check run as root would otherwise
 * leave a file the server's user cannot read): without one, its secret is thrown away.
 */
export function loadOrCreateJwtSecret(dataDir: string, options: LoadOptions = {}): string {
  const file = join(dataDir, JWT_SECRET_FILE);
  try {
    if (options.dryRun) return readSecretFile(file) ?? newSecret();
    mkdirSync(dataDir, { recursive: true });
    const existing = readSecretFile(file);
    if (existing !== null) return existing;
    const secret = newSecret();
    try {
      writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
      return secret;
    } catch (error) {
      const raced = isErrnoCode(error, 'EEXIST') ? readSecretFile(file) : null;
      if (raced !== null) return raced;
      throw error;
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw configError(`DATA_DIR ${JSON.stringify(dataDir)} is not usable for ${JWT_SECRET_FILE} (${code})`);
  }
}

const newSecret = (): string => randomBytes(48).toString('base64url');

function readSecretFile(file: string): string | null {
  let content: string;
  try {
    content = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return null;
    throw error;
  }
  if (content.length < JWT_SECRET_MIN_LENGTH) {
    throw configError(
      `${file} holds a secret shorter than ${JWT_SECRET_MIN_LENGTH} characters (delete it to generate a new one, or set JWT_SECRET)`,
    );
  }
  return content;
}

function isErrnoCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === code;
}
