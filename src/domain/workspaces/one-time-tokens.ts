/**
 * The random tokens of one-time links (invitations, password resets): 256 bits, URL-safe, stored only as their
 * SHA-256 so a copy of the database yields no usable link.
 */
import { createHash, randomBytes } from 'node:crypto';

export function newOneTimeToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashOneTimeToken(token) };
}

/** The stored form of a token; anything that is not a token's shape hashes to a value no row has. */
export function hashOneTimeToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** True when `value` has the shape of a token (43 base64url characters), so junk never reaches a query. */
export function isOneTimeToken(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}
