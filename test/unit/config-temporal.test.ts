/**
 * TEMPORAL_TLS_* and TEMPORAL_API_KEY: what they turn into (the connection options API, worker and CLI share) and
 * the start-up errors of every unusable combination. Certificates are real ones made by `openssl`.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig, type Env } from '../../src/config.ts';
import { temporalConnectionOptions } from '../../src/temporal/connection.ts';
import { createTestPki, type TestPki } from '../support/test-certificates.ts';

let pki: TestPki;

beforeAll(async () => {
  pki = await createTestPki({ dnsNames: ['temporal.internal'], ips: [] });
});

afterAll(async () => {
  await pki.remove();
});

const ADDRESS = 'temporal.internal:7233';

function problemsOf(env: Env): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

it('connects in plaintext when nothing is set, as the local dev server expects', () => {
  for (const env of [{}, { TEMPORAL_ADDRESS: ADDRESS }]) {
    const config = loadConfig(env);
    expect(config.temporal.security.tls).toBeNull();
    expect(temporalConnectionOptions(config.temporal, '127.0.0.1:7233')).toEqual({ address: '127.0.0.1:7233' });
  }
});

it('turns TLS on for an API key, sends it with the namespace, and keeps TEMPORAL_TLS=false from sending it in clear', () => {
  const config = loadConfig({
    TEMPORAL_ADDRESS: 'us-east-1.aws.api.temporal.io:7233',
    TEMPORAL_NAMESPACE: 'acme.a1b2c',
    TEMPORAL_API_KEY: 'key-123',
  });
  expect(temporalConnectionOptions(config.temporal, config.temporal.address!)).toEqual({
    address: 'us-east-1.aws.api.temporal.io:7233',
    tls: {},
    apiKey: 'key-123',
    metadata: { 'temporal-namespace': 'acme.a1b2c' },
  });
  expect(problemsOf({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_API_KEY: 'key-123', TEMPORAL_TLS: 'false' })).toEqual([
    'TEMPORAL_API_KEY requires TLS: remove TEMPORAL_TLS=false (an API key is never sent in clear)',
  ]);
});

it('reads the CA, the client pair and the server name from files or from the variables themselves', () => {
  const ca = readFileSync(pki.caCert, 'utf8');
  const key = readFileSync(pki.clientKey, 'utf8');
  const config = loadConfig({
    TEMPORAL_ADDRESS: '10.0.0.5:7233',
    TEMPORAL_TLS_SERVER_CA_CERT_DATA: ca.trim().replaceAll('\n', '\\n'), // one line, as in an env file
    TEMPORAL_TLS_CLIENT_CERT_PATH: pki.clientCert,
    TEMPORAL_TLS_CLIENT_KEY_DATA: key,
    TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
  });
  const options = temporalConnectionOptions(config.temporal, '10.0.0.5:7233');
  expect(options.tls?.serverRootCACertificate?.toString('utf8')).toBe(ca.trim());
  expect(options.tls?.clientCertPair?.crt.toString('utf8')).toBe(readFileSync(pki.clientCert, 'utf8'));
  expect(options.tls?.clientCertPair?.key.toString('utf8')).toBe(key.trim());
  expect(options.tls?.serverNameOverride).toBe('temporal.internal');
  expect(options.apiKey).toBeUndefined();
});

it('never shows a key or the API key when the configuration is serialised (a logged config stays clean)', () => {
  const config = loadConfig({
    TEMPORAL_ADDRESS: ADDRESS,
    TEMPORAL_TLS_CLIENT_CERT_PATH: pki.clientCert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: pki.clientKey,
    TEMPORAL_API_KEY: 'secret-api-key-value',
  });
  const serialised = JSON.stringify(config);
  expect(serialised).not.toContain('secret-api-key-value');
  expect(serialised).not.toContain('PRIVATE KEY');
  expect(JSON.parse(serialised).temporal.security).toEqual({
    tls: true,
    serverCa: 'system',
    clientCertificate: 'configured',
    serverNameOverride: null,
    apiKey: '[redacted]',
  });
});

it('stops the start with one line per unusable setting, naming the variable and never the content', () => {
  const missing = `${pki.dir}/nowhere.pem`;
  expect(
    problemsOf({
      TEMPORAL_ADDRESS: ADDRESS,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: missing,
      TEMPORAL_TLS_CLIENT_CERT_PATH: pki.clientCert,
      TEMPORAL_TLS_CLIENT_CERT_DATA: readFileSync(pki.clientCert, 'utf8'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: pki.clientKey,
    }),
  ).toEqual([
    `TEMPORAL_TLS_SERVER_CA_CERT_PATH names a file that cannot be read: ${missing} (ENOENT)`,
    'set TEMPORAL_TLS_CLIENT_CERT_PATH or TEMPORAL_TLS_CLIENT_CERT_DATA, not both',
    'TEMPORAL_TLS_CLIENT_KEY_PATH/_DATA needs TEMPORAL_TLS_CLIENT_CERT_PATH/_DATA',
  ]);
  expect(
    problemsOf({
      TEMPORAL_ADDRESS: ADDRESS,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.clientKey,
      TEMPORAL_TLS_CLIENT_CERT_PATH: pki.clientCert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: pki.serverKey,
    }),
  ).toEqual([
    `TEMPORAL_TLS_SERVER_CA_CERT_PATH (${pki.clientKey}) is not a PEM certificate (-----BEGIN CERTIFICATE-----)`,
    `TEMPORAL_TLS_CLIENT_KEY_PATH (${pki.serverKey}) is not the private key of TEMPORAL_TLS_CLIENT_CERT_PATH (${pki.clientCert})`,
  ]);
  const notAKey = problemsOf({
    TEMPORAL_ADDRESS: ADDRESS,
    TEMPORAL_TLS_CLIENT_CERT_PATH: pki.clientCert,
    TEMPORAL_TLS_CLIENT_KEY_DATA: 'not-a-key-but-maybe-a-secret',
  });
  expect(notAKey).toEqual(['TEMPORAL_TLS_CLIENT_KEY_DATA is not a PEM private key (-----BEGIN PRIVATE KEY-----)']);
  expect(
    problemsOf({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_NAME: 'temporal.internal' }),
  ).toEqual(['TEMPORAL_TLS=false contradicts TEMPORAL_TLS_SERVER_NAME: remove one or the other']);
  expect(problemsOf({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_TLS: 'yes' })).toEqual([
    'TEMPORAL_TLS must be true or false',
  ]);
});

it('refuses TLS settings without TEMPORAL_ADDRESS: the local dev server speaks plaintext only', () => {
  expect(problemsOf({ TEMPORAL_TLS: 'true' })).toEqual([
    'TEMPORAL_TLS, TEMPORAL_TLS_* and TEMPORAL_API_KEY need TEMPORAL_ADDRESS: the local Temporal dev server (used when it is unset) serves plaintext only',
  ]);
});
