import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ConfigError, ENV_VARIABLES, loadConfig } from '../../src/config.ts';

describe('configuration', () => {
  it('fills development defaults so a fresh clone runs with no configuration', () => {
    const config = loadConfig({});
    expect(config.env).toBe('development');
    expect(config.urls).toEqual({
      base: 'http://localhost:3000',
      platform: 'http://app.localhost:3000',
      auth: 'http://auth.localhost:3000',
      mcp: 'http://app.localhost:3000/api/mcp',
      brandRootDomain: 'sites.localhost',
    });
    expect(config.database.url).toBeUndefined();
    expect(config.temporal.address).toBeUndefined();
    expect(config.secrets.cookieKeys).toHaveLength(1);
  });

  it('normalises URLs and parses lists', () => {
    const config = loadConfig({
      BASE_URL: 'https://www.example.com/',
      PLATFORM_URL: 'https://app.example.com',
      AUTH_URL: 'https://auth.example.com',
      BRAND_ROOT_DOMAIN: 'Sites.Example.com',
      ALLOWED_ORIGINS: 'https://inspector.example.com, https://other.example.com/',
      COOKIE_SECRETS: 'a'.repeat(32) + ',' + 'b'.repeat(40),
    });
    expect(config.urls.base).toBe('https://www.example.com');
    expect(config.urls.mcp).toBe('https://app.example.com/api/mcp');
    expect(config.urls.brandRootDomain).toBe('sites.example.com');
    expect(config.allowedOrigins).toEqual([
      'https://app.example.com',
      'https://inspector.example.com',
      'https://other.example.com',
    ]);
    expect(config.secrets.cookieKeys).toHaveLength(2);
  });

  it('names every offending variable in one error', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({
        HTTP_PORT: '70000',
        BASE_URL: 'not a url',
        DATABASE_URL: 'mysql://x',
        TEMPORAL_ADDRESS: 'no-port',
        LOG_LEVEL: 'loud',
        COOKIE_SECRETS: 'short',
      });
    } catch (caught) {
      error = caught as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const keys = error!.problems.map((line) => line.split(' ')[0]);
    expect(keys.sort()).toEqual([
      'BASE_URL',
      'COOKIE_SECRETS',
      'DATABASE_URL',
      'HTTP_PORT',
      'LOG_LEVEL',
      'TEMPORAL_ADDRESS',
    ]);
    expect(error!.message).toContain('HTTP_PORT must be between 1 and 65535');
    expect(error!.message).toContain('DATABASE_URL must be a postgres:// or postgresql:// connection URL');
    expect(error!.message).toContain('TEMPORAL_ADDRESS must be host:port');
  });

  it('requires the public URLs, secrets and external services in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    try {
      loadConfig({ NODE_ENV: 'production' });
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'BASE_URL is required in production',
        'PLATFORM_URL is required in production',
        'AUTH_URL is required in production',
        'BRAND_ROOT_DOMAIN is required in production',
        'COOKIE_SECRETS is required in production',
        'CREDENTIAL_KEYS is required in production',
      ]);
    }
    try {
      loadConfig({
        NODE_ENV: 'production',
        BASE_URL: 'https://www.example.com',
        PLATFORM_URL: 'https://app.example.com',
        AUTH_URL: 'https://auth.example.com',
        BRAND_ROOT_DOMAIN: 'sites.example.com',
        COOKIE_SECRETS: 'x'.repeat(32),
        CREDENTIAL_KEYS: 'k'.repeat(32),
      });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'DATABASE_URL is required in production (the embedded PostgreSQL is for development only)',
        'TEMPORAL_ADDRESS is required in production (the Temporal dev server is for development only)',
      ]);
    }
  });

  it('refuses host layouts that cannot be dispatched', () => {
    expect(() =>
      loadConfig({ PLATFORM_URL: 'http://same.localhost:3000', AUTH_URL: 'http://same.localhost:3000' }),
    ).toThrow(/three different hosts/);
    expect(() => loadConfig({ AUTH_URL: 'http://auth.localhost:3000/tenant' })).toThrow(
      /AUTH_URL must not have a path/,
    );
    expect(() => loadConfig({ PLATFORM_URL: 'http://app.sites.localhost:3000' })).toThrow(
      /subdomain of BRAND_ROOT_DOMAIN/,
    );
  });

  it('makes the API process exit non-zero with one message naming every problem', () => {
    const result = spawnSync(process.execPath, ['src/main.ts'], {
      env: { PATH: process.env.PATH, HTTP_PORT: 'abc', TEMPORAL_ADDRESS: 'nope', NODE_OPTIONS: '' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('Invalid configuration:');
    expect(result.stderr).toContain('HTTP_PORT must be a number');
    expect(result.stderr).toContain('TEMPORAL_ADDRESS must be host:port');
    expect(result.stderr.match(/Invalid configuration/g)).toHaveLength(1);
  });

  it('documents every variable it reads in .env.example', () => {
    const documented = new Set(
      readFileSync('.env.example', 'utf8')
        .split('\n')
        .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
        .filter(Boolean),
    );
    expect(ENV_VARIABLES.filter((name) => !documented.has(name))).toEqual([]);
  });
});
