/**
 * API key secrets: `cpk_` + 43 base64url characters (256 random bits).
 *
 * Only the SHA-256 digest is stored. A fast hash is right here (unlike passwords): the input is uniformly
 * random, so there is nothing to brute-force, and verification must be cheap because it runs on every request.
 */
import { hash, randomBytes } from 'node:crypto';

export const API_KEY_PATTERN = /^cpk_[A-Za-z0-9_-]{43}$/;
const DISPLAY_PREFIX_LENGTH = 12; // "cpk_" + 8 characters: enough to tell keys apart, far too little to guess

export interface NewApiKeySecret {
  secret: string;
  prefix: string;
  hash: string;
}

export function generateApiKeySecret(): NewApiKeySecret {
  const secret = `cpk_${randomBytes(32).toString('base64url')}`;
  return { secret, prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH), hash: hashApiKeySecret(secret) };
}

export function hashApiKeySecret(secret: string): string {
  return hash('sha256', secret, 'hex'); // one-shot: cheaper than a Hash object, and this runs per request
}

export function looksLikeApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}
