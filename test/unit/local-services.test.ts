/**
 * The one description of the local services that both the dev stack and the CLI use: addresses from the
 * configuration, and the development cookie secret kept in DATA_DIR when COOKIE_SECRETS is unset.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { LocalSecretError, localServices, resolveLocalConfig } from '../../src/dev/local-services.ts';

let dataDir: string;

beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'local-services-'));
});

afterEach(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

it('describes the embedded services from DATA_DIR and the ports when no external ones are configured', () => {
  const local = localServices(
    loadConfig({ DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: '55001', TEMPORAL_DEV_PORT: '17001' }),
  );
  expect(local).toEqual({
    embeddedPostgres: { dataDir: path.join(dataDir, 'postgres'), port: 55001, database: 'campaign_platform' },
    databaseUrl: 'postgres://postgres:postgres@127.0.0.1:55001/campaign_platform',
    embeddedTemporal: { dataDir: path.join(dataDir, 'temporal'), host: '127.0.0.1', port: 17001, uiPort: 8233 },
    temporalAddress: '127.0.0.1:17001',
    cookieSecretFile: path.join(dataDir, 'dev-cookie-secret'),
    credentialKeyFile: path.join(dataDir, 'dev-credential-key'),
  });
});

it('uses configured services and secrets as they are, and writes nothing', async () => {
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: 'postgres://u:p@db.example:5432/x',
    TEMPORAL_ADDRESS: 'temporal.example:7233',
    COOKIE_SECRETS: 's'.repeat(32),
    CREDENTIAL_KEYS: 'k'.repeat(32),
  });
  expect(localServices(config)).toMatchObject({
    embeddedPostgres: null,
    embeddedTemporal: null,
    cookieSecretFile: null,
    credentialKeyFile: null,
  });
  const resolved = await resolveLocalConfig(config);
  expect(resolved.database.url).toBe('postgres://u:p@db.example:5432/x');
  expect(resolved.temporal.address).toBe('temporal.example:7233');
  expect(resolved.secrets.cookieKeys).toEqual(['s'.repeat(32)]);
  expect(resolved.secrets.credentialKeys).toEqual(['k'.repeat(32)]);
  expect(await fs.readdir(dataDir)).toEqual([]);
});

it('creates the development cookie secret once (mode 0600) and every later resolution reads the same one', async () => {
  const first = await resolveLocalConfig(loadConfig({ DATA_DIR: dataDir }));
  const second = await resolveLocalConfig(loadConfig({ DATA_DIR: dataDir }));
  expect(first.secrets.cookieKeys).toHaveLength(1);
  expect(first.secrets.cookieKeys[0]!.length).toBeGreaterThanOrEqual(32);
  expect(second.secrets.cookieKeys).toEqual(first.secrets.cookieKeys);
  const file = path.join(dataDir, 'dev-cookie-secret');
  expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
  expect((await fs.readFile(file, 'utf8')).trim()).toBe(first.secrets.cookieKeys[0]);
});

it('keeps a development credential key of its own beside the cookie secret, the same on every resolution', async () => {
  const first = await resolveLocalConfig(loadConfig({ DATA_DIR: dataDir }));
  const second = await resolveLocalConfig(loadConfig({ DATA_DIR: dataDir }));
  expect(first.secrets.credentialKeys).toHaveLength(1);
  expect(first.secrets.credentialKeysGenerated).toBe(false);
  expect(second.secrets.credentialKeys).toEqual(first.secrets.credentialKeys);
  expect(first.secrets.credentialKeys[0]).not.toBe(first.secrets.cookieKeys[0]);
  const file = path.join(dataDir, 'dev-credential-key');
  expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
  expect((await fs.readFile(file, 'utf8')).trim()).toBe(first.secrets.credentialKeys[0]);
});

it('agrees on one secret when several callers resolve it at the same moment', async () => {
  const resolved = await Promise.all(
    Array.from({ length: 8 }, () => resolveLocalConfig(loadConfig({ DATA_DIR: dataDir }))),
  );
  expect(new Set(resolved.map((config) => config.secrets.cookieKeys[0])).size).toBe(1);
});

it('refuses a secret file that was cut short, naming the file', async () => {
  await fs.writeFile(path.join(dataDir, 'dev-cookie-secret'), 'too-short\n');
  await expect(resolveLocalConfig(loadConfig({ DATA_DIR: dataDir }))).rejects.toThrow(LocalSecretError);
  await expect(resolveLocalConfig(loadConfig({ DATA_DIR: dataDir }))).rejects.toThrow(
    path.join(dataDir, 'dev-cookie-secret'),
  );
});
