/**
 * The deployment's rules, read from docker-compose.yml itself (docs/deployment.md): the development-only
 * Temporal auto-setup image is gone, Temporal's schema comes from a one-shot job, nothing but the TLS proxy is
 * published to the host, every long-running service has a health check and a restart policy, every secret is
 * required with no default, the platform's containers run unprivileged and share one S3 media store. Then
 * `docker compose config` itself must accept the file, and refuse it without the database password.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { locateDockerCompose } from '../../src/dev/docker-compose.ts';

const require = createRequire(import.meta.url);
/** js-yaml ships no type declarations: the members used here. */
const jsYaml = require('js-yaml') as { safeLoad(text: string): unknown };

interface Service {
  image?: string;
  build?: unknown;
  user?: string;
  restart?: string;
  ports?: unknown[];
  expose?: unknown[];
  healthcheck?: { test?: unknown; disable?: boolean };
  environment?: Record<string, string>;
  command?: unknown;
  depends_on?: Record<string, { condition: string }>;
}

const COMPOSE_FILE = 'docker-compose.yml';
const raw = readFileSync(COMPOSE_FILE, 'utf8');
const compose = jsYaml.safeLoad(raw) as { services: Record<string, Service> };
const services = Object.entries(compose.services);

/** Jobs that run once and exit: what others wait for with `service_completed_successfully`. */
const oneShots = new Set(
  services.flatMap(([, service]) =>
    Object.entries(service.depends_on ?? {})
      .filter(([, dependency]) => dependency.condition === 'service_completed_successfully')
      .map(([name]) => name),
  ),
);
const longRunning = services.filter(([name]) => !oneShots.has(name));
const PLATFORM_SERVICES = ['api', 'worker'];

it('runs the Temporal server image with a schema job, never the development-only auto-setup image', () => {
  expect(services.filter(([, service]) => /auto-setup/.test(service.image ?? '')).map(([name]) => name)).toEqual([]);
  const temporal = compose.services.temporal!;
  expect(temporal.image).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
  const schemaJobs = Object.entries(temporal.depends_on ?? {}).filter(
    ([, dependency]) => dependency.condition === 'service_completed_successfully',
  );
  expect(schemaJobs).toHaveLength(1);
  const schema = compose.services[schemaJobs[0]![0]]!;
  expect(schema.image).toMatch(/^temporalio\/admin-tools:/);
  const script = JSON.stringify(schema.command);
  for (const database of ['temporal', 'temporal_visibility']) {
    for (const step of ['create-database', 'setup-schema', 'update-schema']) {
      expect(script).toContain(`--db ${database} ${step}`);
    }
  }
});

it('publishes only the TLS proxy: PostgreSQL, Temporal, the media store and the API stay on the network', () => {
  const published = services.filter(([, service]) => service.ports?.length).map(([name]) => name);
  expect(published).toEqual(['proxy']);
  expect(compose.services.proxy!.image).toMatch(/^caddy:/);
  for (const name of ['postgres', 'temporal', 'media']) expect(compose.services[name]).toBeDefined();
});

it('gives every long-running service a health check and a restart policy, and one-shot jobs a retry', () => {
  expect(longRunning.map(([name]) => name).sort()).toEqual(['api', 'media', 'postgres', 'proxy', 'temporal', 'worker']);
  for (const [name, service] of longRunning) {
    expect([name, service.healthcheck?.disable ?? false, Array.isArray(service.healthcheck?.test)]).toEqual([
      name,
      false,
      true,
    ]);
    expect([name, service.restart]).toEqual([name, expect.stringMatching(/^(always|unless-stopped)$/)]);
  }
  expect([...oneShots].sort()).toEqual(['temporal-namespace', 'temporal-schema']);
  for (const name of oneShots) expect([name, compose.services[name]!.restart]).toEqual([name, 'on-failure']);
});

it('requires every secret and host name (`${NAME:?…}`), with no default anywhere', () => {
  const interpolations = [...raw.matchAll(/\$\{([A-Z0-9_]+)([^}]*)\}/g)].map(([, name, rest]) => ({
    name: name!,
    rest: rest!,
  }));
  const secrets = interpolations.filter(({ name }) => /PASSWORD|SECRET|KEY|COOKIE|_HOST$|DOMAIN/.test(name));
  expect(new Set(secrets.map(({ name }) => name))).toEqual(
    new Set([
      'POSTGRES_PASSWORD',
      'COOKIE_SECRETS',
      'CREDENTIAL_KEYS',
      'MEDIA_ACCESS_KEY_ID',
      'MEDIA_SECRET_ACCESS_KEY',
      'BASE_HOST',
      'PLATFORM_HOST',
      'AUTH_HOST',
      'BRAND_ROOT_DOMAIN',
    ]),
  );
  for (const { name, rest } of secrets) expect([name, rest]).toEqual([name, expect.stringMatching(/^:\?\S/)]);
  // No secret-looking key set to a literal (the old file defaulted the password to `campaign`).
  const literals = raw.match(/^\s*[A-Z0-9_]*(PASSWORD|PWD|SECRETS?|KEYS?|KEY_ID)\s*:\s*(?!\$\{)\S.*$/gm);
  expect(literals).toBeNull();
});

it("runs the platform's containers as an unprivileged user, sharing one S3 media store", () => {
  for (const name of PLATFORM_SERVICES) {
    const service = compose.services[name]!;
    expect([name, service.user]).toEqual([name, expect.not.stringMatching(/^(root|0)(:|$)/)]);
    expect(service.user).toBeTruthy();
    expect(service.environment).toMatchObject({ MEDIA_STORE: 's3', S3_ENDPOINT: 'http://media:7070' });
  }
  expect(compose.services.api!.environment).toBe(compose.services.worker!.environment);
  // The image's last stage drops root too.
  const stages = readFileSync('Dockerfile', 'utf8').split(/^FROM /m);
  expect(stages.at(-1)).toMatch(/^USER node$/m);
});

/** The pinned Docker Compose (`npm run tools:install` builds it; built here on first use otherwise). */
let composeBinary: string;
beforeAll(async () => {
  composeBinary = await locateDockerCompose({
    explicitPath: process.env.DOCKER_COMPOSE_PATH,
    toolsDir: path.resolve(process.env.TOOLS_DIR ?? '.tools'),
    searchPath: process.env.PATH,
  });
}, 1_800_000);

const REQUIRED_ENV = {
  BASE_HOST: 'www.example.com',
  PLATFORM_HOST: 'app.example.com',
  AUTH_HOST: 'auth.example.com',
  BRAND_ROOT_DOMAIN: 'sites.example.com',
  ACME_EMAIL: 'ops@example.com',
  POSTGRES_PASSWORD: 'a'.repeat(48),
  COOKIE_SECRETS: 'c'.repeat(40),
  CREDENTIAL_KEYS: 'k'.repeat(40),
  MEDIA_ACCESS_KEY_ID: 'MEDIAKEY',
  MEDIA_SECRET_ACCESS_KEY: 's'.repeat(40),
};

it('passes `docker compose config`, and is refused without the database password', () => {
  const run = (env: Record<string, string>) =>
    spawnSync(composeBinary, ['-f', COMPOSE_FILE, 'config', '-q'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      encoding: 'utf8',
    });
  const valid = run(REQUIRED_ENV);
  expect([valid.status, valid.stderr]).toEqual([0, '']);

  const { POSTGRES_PASSWORD: _password, ...withoutPassword } = REQUIRED_ENV;
  const refused = run(withoutPassword);
  expect(refused.status).not.toBe(0);
  expect(refused.stderr).toContain('set POSTGRES_PASSWORD');
});
