import { generateApiKeySecret, hashApiKeySecret, looksLikeApiKey } from '../../src/auth/api-key-secrets.ts';
import { hashPassword, verifyPassword } from '../../src/auth/passwords.ts';
import { can, PERMISSIONS, ROLE_PERMISSIONS } from '../../src/auth/permissions.ts';
import { ROLES, roleAtLeast } from '../../src/domain/workspaces/roles.ts';

describe('API key secrets', () => {
  it('are 256-bit, recognisable, and stored only as their SHA-256', () => {
    const a = generateApiKeySecret();
    const b = generateApiKeySecret();
    expect(a.secret).toMatch(/^cpk_[A-Za-z0-9_-]{43}$/);
    expect(a.secret).not.toBe(b.secret);
    expect(a.prefix).toBe(a.secret.slice(0, 12));
    expect(a.hash).toBe(hashApiKeySecret(a.secret));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(looksLikeApiKey(a.secret)).toBe(true);
    expect(looksLikeApiKey(`${a.secret}x`)).toBe(false);
    expect(looksLikeApiKey('cpk_short')).toBe(false);
  });
});

describe('passwords', () => {
  it('hash with argon2id into a PHC string and verify', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', hash)).toBe(false);
    expect(await verifyPassword('x', 'not-a-phc-string')).toBe(false);
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
  });
});

describe('roles and permissions', () => {
  it('are strictly nested from viewer to owner', () => {
    expect(ROLES).toEqual(['owner', 'admin', 'editor', 'viewer']);
    for (let i = 0; i < ROLES.length - 1; i += 1) {
      const higher = ROLE_PERMISSIONS[ROLES[i]!];
      const lower = ROLE_PERMISSIONS[ROLES[i + 1]!];
      expect([...lower].every((p) => higher.has(p))).toBe(true);
      expect(higher.size).toBeGreaterThan(lower.size);
      expect(roleAtLeast(ROLES[i]!, ROLES[i + 1]!)).toBe(true);
      expect(roleAtLeast(ROLES[i + 1]!, ROLES[i]!)).toBe(false);
    }
  });

  it('match the spec: viewers read, editors mutate and spend, admins manage access, owners manage credits', () => {
    expect(PERMISSIONS.filter((p) => can('viewer', p))).toEqual(['workspace:read']);
    expect(can('viewer', 'content:write')).toBe(false);
    expect(can('editor', 'content:write')).toBe(true);
    expect(can('editor', 'credits:spend')).toBe(true);
    expect(can('editor', 'keys:manage')).toBe(false);
    expect(can('admin', 'keys:manage') && can('admin', 'members:manage') && can('admin', 'apps:manage')).toBe(true);
    expect(can('admin', 'credits:manage')).toBe(false);
    expect(can('owner', 'credits:manage') && can('owner', 'workspace:delete')).toBe(true);
  });
});
