/**
 * Secrets at rest: the one place that encrypts what the platform must be able to read back (the authorization
 * server's private signing keys, channel accounts' app passwords and tokens). Hashing is for what it only needs
 * to recognise (API keys, passwords: `auth/`).
 *
 * AES-256-GCM (node:crypto) under a key derived with HKDF-SHA-256 from a configured secret and a purpose, so
 * one secret never yields the same key for two uses. A sealed value names the key that sealed it
 * (`v2.<kid>.<iv|tag|ciphertext>`, the kid being a hash of the derived key, which reveals nothing of it), so
 * rotation is plain: put the new secret first (it seals from then on), keep the old ones after it (they still
 * open), re-seal what is stored (`campaignctl secrets:reseal`), then drop the old secret.
 *
 * Optional associated data binds a sealed value to where it belongs (a channel account's id): copied into
 * another row, it no longer opens.
 *
 * `v1.<iv|tag|ciphertext>` values (the signing keys sealed before kids existed) name no key: every secret is
 * tried in turn.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KID_LENGTH = 12;

/** No configured secret opens a sealed value (a secret was removed too early, or the value was tampered with). */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

interface BoxKey {
  kid: string;
  key: Buffer;
}

export interface SecretBox {
  /** Seals with the first (current) secret. */
  seal(plaintext: string, associatedData?: string): string;
  /** Opens a value sealed by any configured secret. `current` is false when it should be sealed again. */
  open(sealed: string, associatedData?: string): { plaintext: string; current: boolean };
  /** Whether a sealed value was sealed by the current secret (re-sealing it would change nothing). */
  isCurrent(sealed: string): boolean;
}

function deriveKey(secret: string, purpose: string): BoxKey {
  const key = Buffer.from(hkdfSync('sha256', secret, 'campaign-platform', purpose, 32));
  const kid = createHash('sha256').update(key).digest('base64url').slice(0, KID_LENGTH);
  return { kid, key };
}

function decrypt(key: Buffer, payload: Buffer, associatedData: string | undefined): string {
  const decipher = createDecipheriv('aes-256-gcm', key, payload.subarray(0, IV_BYTES));
  decipher.setAuthTag(payload.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  if (associatedData !== undefined) decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  return Buffer.concat([decipher.update(payload.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/**
 * A box over `secrets` (the first seals, all open) for one `purpose` (the HKDF info: `oidc-signing-keys`,
 * `channel-credentials`).
 */
export function createSecretBox(secrets: readonly string[], purpose: string): SecretBox {
  if (secrets.length === 0) throw new Error(`No secret is configured to seal ${purpose}`);
  const keys = secrets.map((secret) => deriveKey(secret, purpose));
  const byKid = new Map(keys.map((entry) => [entry.kid, entry.key]));
  const current = keys[0]!;

  return {
    seal(plaintext, associatedData) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      if (associatedData !== undefined) cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `v2.${current.kid}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
    },

    open(sealed, associatedData) {
      const [version, second, third] = sealed.split('.');
      if (version === 'v2' && second && third) {
        const key = byKid.get(second);
        if (!key) {
          throw new SecretBoxError(
            `The ${purpose} were sealed with a secret that is no longer configured (key ${second}); restore it after the current one`,
          );
        }
        try {
          return {
            plaintext: decrypt(key, Buffer.from(third, 'base64url'), associatedData),
            current: second === current.kid,
          };
        } catch {
          throw new SecretBoxError(`A sealed value of the ${purpose} does not open: it was altered or moved`);
        }
      }
      if (version === 'v1' && second && third === undefined) {
        const payload = Buffer.from(second, 'base64url');
        for (const entry of keys) {
          try {
            // A v1 value names no key: it is never current, so re-sealing moves it to v2.
            return { plaintext: decrypt(entry.key, payload, associatedData), current: false };
          } catch {
            // try the next secret
          }
        }
        throw new SecretBoxError(`No configured secret opens the stored ${purpose}; was a secret removed too early?`);
      }
      throw new SecretBoxError(`Not a sealed value of the ${purpose}`);
    },

    isCurrent(sealed) {
      return sealed.startsWith(`v2.${current.kid}.`);
    },
  };
}
