/**
 * The authorization server's signing keys, persisted in PostgreSQL so every instance and every restart signs
 * with the same keys. Private keys are sealed at rest by the platform's secret box
 * (`domain/shared/secret-box.ts`: AES-256-GCM under a key derived from the cookie secrets); any of the
 * configured secrets can open them, so secrets rotate without losing keys.
 *
 * Rotation (`campaignctl oauth:rotate-signing-key`): a new key is added and becomes the signing key at the next
 * restart; older keys stay published for verification until retired.
 */
import { generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createSecretBox, SecretBoxError } from '../../domain/shared/secret-box.ts';
import { OidcSigningKey } from './oidc.entities.ts';
import { lockForTransaction } from '../../db/transaction-lock.ts';

const PURPOSE = 'oidc-signing-keys';

export function encryptJwk(jwk: JsonWebKey, secrets: readonly string[]): string {
  return createSecretBox(secrets, PURPOSE).seal(JSON.stringify(jwk));
}

export function decryptJwk(stored: string, secrets: readonly string[]): JsonWebKey {
  try {
    return JSON.parse(createSecretBox(secrets, PURPOSE).open(stored).plaintext) as JsonWebKey;
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    // src/cli/failures.ts recognises this sentence and tells the operator which secret the CLI used.
    throw new Error(
      'No configured COOKIE_SECRETS value decrypts the stored signing key; was the secret changed without keeping the old one?',
      { cause: error },
    );
  }
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
  em.create(OidcSigningKey, { kid: jwk.kid, encryptedJwk: encryptJwk(jwk, secrets), retiredAt: null });
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
    await lockForTransaction(tx, 'oidc-signing-keys');
    if ((await tx.count(OidcSigningKey, { retiredAt: null })) === 0) {
      const jwk = newSigningJwk();
      tx.create(OidcSigningKey, { kid: jwk.kid, encryptedJwk: encryptJwk(jwk, secrets), retiredAt: null });
    }
  });
  const rows = await orm.em.fork().find(OidcSigningKey, { retiredAt: null }, { orderBy: { createdAt: 'desc' } });
  return { keys: rows.map((row) => decryptJwk(row.encryptedJwk, secrets)) };
}
