/**
 * The authorization server's signing keys, persisted in PostgreSQL so every instance and every restart signs
 * with the same keys. Private keys are encrypted at rest with AES-256-GCM under a key derived (HKDF) from the
 * cookie secrets; any of the configured secrets can decrypt, so secrets rotate without losing keys.
 *
 * Rotation (`campaignctl oauth:rotate-signing-key`): a new key is added and becomes the signing key at the next
 * restart; older keys stay published for verification until retired.
 */
import {
  createCipheriv,
  createDecipheriv,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type JsonWebKey,
} from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { OidcSigningKey } from './oidc.entities.ts';

function wrappingKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'campaign-platform', 'oidc-signing-keys', 32));
}

export function encryptJwk(jwk: JsonWebKey, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', wrappingKey(secret), iv);
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(jwk), 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
}

export function decryptJwk(stored: string, secrets: readonly string[]): JsonWebKey {
  const raw = Buffer.from(stored.replace(/^v1\./, ''), 'base64url');
  for (const secret of secrets) {
    try {
      const decipher = createDecipheriv('aes-256-gcm', wrappingKey(secret), raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8'));
    } catch {
      // try the next secret
    }
  }
  throw new Error(
    'No configured COOKIE_SECRETS value decrypts the stored signing key; was the secret changed without keeping the old one?',
  );
}

function newSigningJwk(): JsonWebKey & { kid: string } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: `es256-${randomBytes(8).toString('hex')}`, alg: 'ES256', use: 'sig' };
}

/** Adds a new signing key; it signs from the next start on. */
export async function rotateSigningKey(orm: MikroORM, secrets: readonly string[]): Promise<string> {
  const jwk = newSigningJwk();
  const em = orm.em.fork();
  em.create(OidcSigningKey, { kid: jwk.kid, encryptedJwk: encryptJwk(jwk, secrets[0]!), retiredAt: null });
  await em.flush();
  return jwk.kid;
}

/**
 * The JWKS for the provider: active keys, newest first (the first one signs). Creates the first key when
 * there is none; an advisory lock keeps two instances booting together from creating two.
 */
export async function loadSigningKeys(orm: MikroORM, secrets: readonly string[]): Promise<{ keys: JsonWebKey[] }> {
  const em = orm.em.fork();
  await em.transactional(async (tx) => {
    await tx
      .getConnection()
      .execute("select pg_advisory_xact_lock(hashtext('oidc-signing-keys'))", [], 'all', tx.getTransactionContext());
    if ((await tx.count(OidcSigningKey, { retiredAt: null })) === 0) {
      const jwk = newSigningJwk();
      tx.create(OidcSigningKey, { kid: jwk.kid, encryptedJwk: encryptJwk(jwk, secrets[0]!), retiredAt: null });
    }
  });
  const rows = await orm.em.fork().find(OidcSigningKey, { retiredAt: null }, { orderBy: { createdAt: 'desc' } });
  return { keys: rows.map((row) => decryptJwk(row.encryptedJwk, secrets)) };
}
