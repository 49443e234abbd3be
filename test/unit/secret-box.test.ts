/**
 * The secret box: what it seals opens again only with a configured secret, for the same purpose and the same
 * associated data; the sealed form names its key, so rotation knows what to re-seal; legacy v1 values open.
 */
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { createSecretBox, SecretBoxError } from '../../src/domain/shared/secret-box.ts';

const OLD = 'old-secret-0123456789abcdef0123456789';
const NEW = 'new-secret-fedcba9876543210fedcba9876';

describe('secret box', () => {
  it('seals to v2.<kid>.<payload> that opens to the plaintext, differently each time', () => {
    const box = createSecretBox([NEW], 'channel-credentials');
    const first = box.seal('app-pass-word', 'cha_1');
    const second = box.seal('app-pass-word', 'cha_1');
    expect(first).toMatch(/^v2\.[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]+$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('app-pass-word');
    expect(box.open(first, 'cha_1')).toEqual({ plaintext: 'app-pass-word', current: true });
  });

  it('binds a value to its associated data and its purpose', () => {
    const box = createSecretBox([NEW], 'channel-credentials');
    const sealed = box.seal('token', 'cha_1');
    expect(() => box.open(sealed, 'cha_2')).toThrow(/altered or moved/);
    expect(() => box.open(sealed)).toThrow(SecretBoxError);
    // The same secret for another purpose is another key, with another kid.
    expect(() => createSecretBox([NEW], 'oidc-signing-keys').open(sealed, 'cha_1')).toThrow(/no longer configured/);
  });

  it('rotates: the first secret seals, older ones still open and are reported as not current', () => {
    const before = createSecretBox([OLD], 'channel-credentials');
    const sealedOld = before.seal('token', 'cha_1');
    const rotated = createSecretBox([NEW, OLD], 'channel-credentials');
    expect(rotated.isCurrent(sealedOld)).toBe(false);
    expect(rotated.open(sealedOld, 'cha_1')).toEqual({ plaintext: 'token', current: false });
    const resealed = rotated.seal('token', 'cha_1');
    expect(rotated.isCurrent(resealed)).toBe(true);
    // Once the old secret is dropped, what was not re-sealed says which key it needs.
    const kid = sealedOld.split('.')[1];
    expect(() => createSecretBox([NEW], 'channel-credentials').open(sealedOld, 'cha_1')).toThrow(
      new RegExp(`key ${kid}`),
    );
  });

  it('opens legacy v1 values (no kid) with any configured secret, never as current', () => {
    const key = Buffer.from(hkdfSync('sha256', OLD, 'campaign-platform', 'oidc-signing-keys', 32));
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const ciphertext = Buffer.concat([cipher.update('{"kty":"RSA"}', 'utf8'), cipher.final()]);
    const legacy = `v1.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
    const box = createSecretBox([NEW, OLD], 'oidc-signing-keys');
    expect(box.open(legacy)).toEqual({ plaintext: '{"kty":"RSA"}', current: false });
    expect(() => createSecretBox([NEW], 'oidc-signing-keys').open(legacy)).toThrow(/removed too early/);
  });

  it('refuses what is not a sealed value, and a box without secrets', () => {
    const box = createSecretBox([NEW], 'channel-credentials');
    expect(() => box.open('plain text')).toThrow(/Not a sealed value/);
    expect(() => createSecretBox([], 'channel-credentials')).toThrow(/No secret is configured/);
  });
});
