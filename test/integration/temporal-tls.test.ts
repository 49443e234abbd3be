/**
 * Temporal anywhere: the API, a real worker and the CLI reach a Temporal server that accepts mutual TLS only
 * (certificates made for this run, a server certificate issued to a name that is not the address, a namespace
 * other than `default`), run real jobs end to end through it, and a client trusting another CA is refused.
 *
 * The server is the Temporal server binary with TLS in its configuration (`support/tls-temporal.ts`): the CLI's
 * `server start-dev` has no TLS settings. Its first use builds it (`npm run tools:install` does it up front).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig, type Env } from '../../src/config.ts';
import { actors, workspaceScope } from '../../src/domain/shared/scope.ts';
import { isTerminalJobStatus } from '../../src/domain/jobs/job-status.ts';
import { createLogger } from '../../src/logger.ts';
import { connectTemporalClient, temporalConnectionOptions, TemporalTlsError } from '../../src/temporal/connection.ts';
import { startWorker } from '../../src/worker.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';
import { createTestPki, type TestPki } from '../support/test-certificates.ts';
import { locateTestTemporalServer, startTlsTemporal, type TlsTemporal } from '../support/tls-temporal.ts';
import { workerEnv } from '../support/worker-process.ts';

const NAMESPACE = 'acme-tls';
const SERVER_NAME = 'temporal.internal';

const UNTRUSTED_SERVER =
  "the server's certificate is not signed by the CA this process trusts (TEMPORAL_TLS_SERVER_CA_CERT_PATH/_DATA, or the system's CAs when unset) [UNABLE_TO_VERIFY_LEAF_SIGNATURE]";

let pki: TestPki;
let temporal: TlsTemporal;
let platform: TestPlatform;
let tenant: Tenant;

/** The settings an operator would give API, worker and CLI: files for the CA and certificate, the key inline. */
function tlsEnv(overrides: Env = {}): Env {
  return {
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: NAMESPACE,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert,
    TEMPORAL_TLS_CLIENT_CERT_PATH: pki.clientCert,
    TEMPORAL_TLS_CLIENT_KEY_DATA: readFileSync(pki.clientKey, 'utf8'),
    TEMPORAL_TLS_SERVER_NAME: SERVER_NAME,
    ...overrides,
  };
}

function cli(env: Env, ...args: string[]) {
  const result = spawnSync(process.execPath, ['src/cli/campaignctl.ts', ...args], {
    env: { ...workerEnv(platform.config), ...env } as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  const binary = await locateTestTemporalServer();
  pki = await createTestPki({ dnsNames: [SERVER_NAME], ips: [] });
  temporal = await startTlsTemporal({ binary, pki, serverName: SERVER_NAME, namespace: NAMESPACE });
  // The API's container connects eagerly (search attributes, schedules); the worker with the native connection.
  platform = await startTestPlatform({ worker: true, label: 'temporaltls', env: tlsEnv() });
  tenant = await createTenant(platform.container);
}, 30 * 60_000); // a first run builds the Temporal server

afterAll(async () => {
  await platform?.close();
  await temporal?.stop();
  await pki?.remove();
});

it('runs a job started by the API on the worker, both over mutual TLS, in the configured namespace', async () => {
  // A scope (and so a unit of work) per read: one kept across reads would answer the first row again.
  const scope = () => workspaceScope(platform.container.orm.em, tenant.workspaceId, actors.operator);
  const { job } = await platform.container.services.jobs.start(scope(), {
    kind: 'selftest',
    workflowType: 'selftestWorkflow',
    businessKey: 'tls',
    input: { steps: 2, stepMs: 10 },
    summary: 'TLS self-test',
  });
  const done = await pollUntil(
    () => platform.container.services.jobs.get(scope(), job.id),
    (row) => isTerminalJobStatus(row.status),
    { timeoutMs: 30_000, intervalMs: 100, timeoutMessage: (row) => `job stuck in ${row.status}` },
  );
  expect(done.status).toBe('succeeded');
  // The job row turns succeeded from the workflow's last activity, a moment before the run itself closes.
  const handle = platform.container.temporal.client.workflow.getHandle(job.workflowId);
  await handle.result();
  const execution = await handle.describe();
  expect(execution.status.name).toBe('COMPLETED');
  expect(execution.taskQueue).toBe(platform.config.temporal.taskQueue);
  expect(platform.container.temporal.client.options.namespace).toBe(NAMESPACE);
});

it('lets the CLI start and follow a job with the same settings', () => {
  const run = cli(tlsEnv(), 'jobs:selftest', '--workspace', tenant.workspaceId, '--key', 'cli', '--steps', '1');
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^Started self-test: job job_\w+ \(workflow selftest:\w+:cli\)\./);
  const jobId = /job (job_\w+)/.exec(run.stdout)![1]!;
  const shown = cli(tlsEnv(), 'jobs:get', '--workspace', tenant.workspaceId, '--job', jobId, '--json');
  expect(shown.code).toBe(0);
  expect(JSON.parse(shown.stdout)).toMatchObject({ id: jobId });
});

it('refuses API, worker and CLI when they trust another CA or bring no certificate, saying why', async () => {
  const wrongCa = loadConfig(tlsEnv({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.otherCaCert }));
  await expect(connectTemporalClient(wrongCa, temporal.address)).rejects.toMatchObject({
    name: 'TemporalTlsError',
    message: `TLS connection to Temporal at ${temporal.address} failed: ${UNTRUSTED_SERVER}`,
  });
  const worker = startWorker(
    { ...platform.config, temporal: { ...platform.config.temporal, security: wrongCa.temporal.security } },
    createLogger({ level: 'silent', name: 'test' }),
  );
  await expect(worker).rejects.toThrow(TemporalTlsError);
  // Not only the pre-flight: the SDK's own native connection is refused too.
  await expect(NativeConnection.connect(temporalConnectionOptions(wrongCa.temporal, temporal.address))).rejects.toThrow(
    /UnknownIssuer|certificate/i,
  );

  // The server requires a client certificate: TLS alone is not enough.
  const noClientCert = loadConfig(
    tlsEnv({ TEMPORAL_TLS_CLIENT_CERT_PATH: undefined, TEMPORAL_TLS_CLIENT_KEY_DATA: undefined }),
  );
  await expect(connectTemporalClient(noClientCert, temporal.address)).rejects.toThrow(/certificate required/);

  // A TLS client of a plaintext server (the run's shared dev server) learns that it does not speak TLS.
  const plaintextServer = process.env.TEST_TEMPORAL_ADDRESS!;
  await expect(
    connectTemporalClient(loadConfig(tlsEnv({ TEMPORAL_ADDRESS: plaintextServer })), plaintextServer),
  ).rejects.toThrow(/^TLS connection to Temporal at .* failed: .*(wrong version number|packet length too long)/);

  const refused = cli(
    tlsEnv({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.otherCaCert }),
    'jobs:selftest',
    '--workspace',
    tenant.workspaceId,
    '--key',
    'refused',
  );
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toBe(
    `TLS connection to Temporal at ${temporal.address} failed: ${UNTRUSTED_SERVER}. Check TEMPORAL_ADDRESS and the TEMPORAL_TLS_* settings (docs/temporal.md).\n`,
  );
});
