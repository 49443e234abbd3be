/**
 * The operator CLI against the real database: every command validates its input, says what it did, prints
 * an API key's secret exactly once, and fails with a clear message and a non-zero exit code.
 */
import { spawnSync } from 'node:child_process';
import { ChannelAccount } from '../../src/domain/channels/channel-account.entity.ts';
import { createChannelAccess } from '../../src/domain/channels/channel-access.ts';
import { ApiKey } from '../../src/domain/workspaces/api-key.entity.ts';
import { createTenant } from '../support/factories.ts';
import { TEST_CREDENTIAL_KEY } from '../support/platform.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerEnv } from '../support/worker-process.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

let platform: TestPlatform;

function cli(...args: string[]) {
  const result = spawnSync(process.execPath, ['src/cli/campaignctl.ts', ...args], {
    env: workerEnv(platform.config),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'cli' });
});

afterAll(async () => {
  await platform.close();
});

it('sets up a person, a workspace, a member and keys, saying what it did', async () => {
  const user = cli(
    'user:create',
    '--email',
    'Ada@Example.test',
    '--name',
    'Ada Lovelace',
    '--password',
    'correct horse battery',
  );
  expect(user).toMatchObject({ code: 0, stderr: '' });
  expect(user.stdout).toMatch(/^Created user ada@example\.test \(usr_[0-9A-Z]{26}\)\.\n$/);

  const workspace = cli('workspace:create', '--name', 'Café Ünïcode', '--owner', 'ada@example.test', '--json');
  expect(workspace.code).toBe(0);
  const ws = JSON.parse(workspace.stdout) as { id: string; slug: string };
  expect(ws.slug).toBe('cafe-unicode');

  expect(cli('user:create', '--email', 'bob@example.test', '--name', 'Bob').code).toBe(0);
  const member = cli('member:set', '--workspace', ws.id, '--email', 'bob@example.test', '--role', 'viewer');
  expect(member.stdout).toBe(`Added bob@example.test as viewer of ${ws.id}.\n`);

  const key = cli(
    'key:create',
    '--workspace',
    ws.id,
    '--creator',
    'ada@example.test',
    '--name',
    'ci',
    '--role',
    'editor',
  );
  expect(key.code).toBe(0);
  const secret = /Secret \(shown once, store it now\): (cpk_[A-Za-z0-9_-]{43})/.exec(key.stdout)?.[1];
  expect(secret).toBeDefined();

  const list = cli('key:list', '--workspace', ws.id, '--json');
  const keys = JSON.parse(list.stdout) as Record<string, unknown>[];
  expect(keys).toHaveLength(1);
  expect(keys[0]).toMatchObject({
    name: 'ci',
    role: 'editor',
    prefix: secret!.slice(0, 12),
    createdBy: 'ada@example.test',
  });
  expect(list.stdout).not.toContain(secret!.slice(12));

  const stored = await acrossWorkspaces(platform.container.orm.em).findOneOrFail(ApiKey, { workspace: ws.id });
  expect(stored.secretHash).toMatch(/^[0-9a-f]{64}$/);
  expect(stored.secretHash).not.toContain(secret!.slice(4));

  const disabled = cli('key:disable', '--workspace', ws.id, '--key', stored.id);
  expect(disabled.stdout).toBe(`Disabled API key ${stored.id} ("ci").\n`);

  const grant = cli('credits:grant', '--workspace', ws.id, '--amount', '50', '--idempotency-key', 'invoice-1');
  expect(grant.stdout).toBe(`Granted 50 credits to ${ws.id}; available now 50.\n`);
  const replay = cli('credits:grant', '--workspace', ws.id, '--amount', '50', '--idempotency-key', 'invoice-1');
  expect(replay.stdout).toBe(`Already granted (same idempotency key) to ${ws.id}; available now 50.\n`);
  expect(cli('credits:balance', '--workspace', ws.id).stdout).toBe('Available 50, held 0, spent 0.\n');
});

it.each([
  [
    ['user:create', '--email', 'not-an-email', '--name', 'X'],
    1,
    'Error (validation_failed): Invalid user: email: must be an email address',
  ],
  [
    ['user:create', '--email', 'ada@example.test', '--name', 'Again'],
    1,
    'Error (conflict): A user with email ada@example.test already exists',
  ],
  [
    ['user:create', '--email', 'short@example.test', '--name', 'S', '--password', 'short'],
    1,
    'password: must be at least 10 characters',
  ],
  [
    ['workspace:create', '--name', 'W', '--owner', 'nobody@example.test'],
    1,
    'Error (not_found): User nobody@example.test was not found',
  ],
  [
    ['member:set', '--workspace', 'ws_01J0000000000000000000000', '--email', 'ada@example.test', '--role', 'viewer'],
    1,
    'Error (not_found): Workspace',
  ],
  [['credits:grant', '--workspace', 'ws_x', '--amount', 'ten'], 2, '--amount must be a whole number'],
  [['user:create', '--name', 'No Email'], 2, '--email is required'],
  [['user:create', '--email', 'a@b.test', '--name', 'A', '--bogus', 'x'], 2, "Unknown option '--bogus'"],
  [['frobnicate'], 2, 'Unknown command "frobnicate"'],
])('refuses %j with exit code %i and a clear message', (args, code, message) => {
  const result = cli(...(args as string[]));
  expect(result.code).toBe(code);
  expect(result.stderr).toContain(message);
});

it('reports a missing option without loading or connecting to anything', () => {
  // Nothing listens on this database port: a usage error must not wait for (or be hidden by) a connection.
  const result = spawnSync(process.execPath, ['src/cli/campaignctl.ts', 'key:disable', '--workspace', 'ws_x'], {
    env: { ...workerEnv(platform.config), DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(result.status).toBe(2);
  expect(result.stderr).toBe('--key is required\nUsage: campaignctl key:disable --workspace <id> --key <key id>\n');
});

it('refuses a key whose role would exceed its creator and a negative grant, changing nothing', async () => {
  const keysBefore = await acrossWorkspaces(platform.container.orm.em).count(ApiKey, {});
  expect(cli('user:create', '--email', 'grace@example.test', '--name', 'Grace').code).toBe(0);
  const ws = JSON.parse(
    cli('workspace:create', '--name', 'Second', '--owner', 'grace@example.test', '--json').stdout,
  ) as { id: string };
  expect(cli('user:create', '--email', 'eve@example.test', '--name', 'Eve').code).toBe(0);
  expect(cli('member:set', '--workspace', ws.id, '--email', 'eve@example.test', '--role', 'editor').code).toBe(0);
  const refused = cli(
    'key:create',
    '--workspace',
    ws.id,
    '--creator',
    'eve@example.test',
    '--name',
    'x',
    '--role',
    'admin',
  );
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(
    "A key cannot carry a role higher than its creator's: eve@example.test is editor and asked for admin",
  );
  const negative = cli('credits:grant', '--workspace', ws.id, '--amount=-5');
  expect(negative.code).toBe(1);
  expect(negative.stderr).toContain('amount: must be positive');
  expect(await acrossWorkspaces(platform.container.orm.em).count(ApiKey, {})).toBe(keysBefore);
  expect(cli('credits:balance', '--workspace', ws.id).stdout).toBe('Available 0, held 0, spent 0.\n');
});

it('re-seals channel credentials with a new first key, after which the old key can go', async () => {
  const tenant = await createTenant(platform.container);
  const em = acrossWorkspaces(platform.container.orm.em);
  const { access } = platform.container.services.channels;
  const account = em.create(ChannelAccount, {
    workspace: tenant.workspaceId,
    network: 'bluesky',
    externalId: 'did:plc:reseal',
    handle: 'reseal.bsky.social',
    connectedBy: 'test',
    connectedAt: new Date(),
  });
  account.credentials = access.seal(account.id, { did: 'did:plc:reseal', appPassword: 'aaaa-bbbb-cccc-dddd' });
  await em.flush();

  const newKey = 'a-brand-new-credential-key-0123456789abcdef';
  const rotated = spawnSync(process.execPath, ['src/cli/campaignctl.ts', 'secrets:reseal'], {
    env: { ...workerEnv(platform.config), CREDENTIAL_KEYS: `${newKey},${TEST_CREDENTIAL_KEY}` },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(rotated.stderr).toBe('');
  expect(rotated.stdout).toMatch(/^Re-sealed 1 channel credential with the current key; 0 already were\./);
  const row = await acrossWorkspaces(platform.container.orm.em).findOneOrFail(ChannelAccount, { id: account.id });
  const onlyNew = createChannelAccess({
    adapters: platform.container.services.channels.adapters,
    audit: platform.container.services.audit,
    credentialKeys: [newKey],
    refreshAheadSeconds: 600,
  });
  expect(onlyNew.open(row)).toEqual({ did: 'did:plc:reseal', appPassword: 'aaaa-bbbb-cccc-dddd' });
  expect(() => access.open(row)).toThrow(/no longer configured/);
});
