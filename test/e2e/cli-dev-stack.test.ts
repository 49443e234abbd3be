/**
 * The operator CLI against the stack `npm start` runs (issue 18, item 16): the real `scripts/dev-stack.ts` as
 * a child process with a data folder and ports of its own, and the CLI in child processes with
 * DATABASE_URL, TEMPORAL_ADDRESS and COOKIE_SECRETS unset, as a person who just typed `npm start` runs it.
 * The CLI must find the embedded PostgreSQL, the Temporal dev server and the cookie secret the stack keeps in
 * its data folder (which decrypts the OAuth signing keys), run the commands the start banner suggests as
 * printed, and report a start-up failure in one line, never a stack trace.
 */
import { spawn } from 'node:child_process';
import { freePort } from '../support/global-setup.ts';
import { launchDevStack, type DevStack } from '../support/dev-stack-process.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let stack: DevStack | undefined;
let workspaceId: string;

function run(command: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The CLI with only the stack's local-service settings (no DATABASE_URL, TEMPORAL_ADDRESS, COOKIE_SECRETS). */
function cli(args: string[], overrides: Record<string, string> = {}): Promise<Run> {
  return run(process.execPath, ['src/cli/campaignctl.ts', ...args], { ...stack!.env, ...overrides });
}

beforeAll(async () => {
  stack = await launchDevStack({
    // A test's Temporal CLI and workflow bundle (built once per run by the global set-up), so that the stack
    // neither looks for the CLI nor bundles the workflows again; everything else is as `npm start` has it.
    TEMPORAL_CLI_PATH: process.env.TEST_TEMPORAL_CLI!,
    WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE!,
    LOG_LEVEL: 'warn',
  });
  await stack.ready;
  workspaceId = /Workspace: {2}Demo workspace \((ws_[0-9A-Z]{26})\)/.exec(stack.banner())![1]!;
}, 150_000);

afterAll(async () => {
  await stack?.stop();
}, 120_000);

it('runs the CLI commands the start banner suggests, exactly as printed', async () => {
  const suggested = stack!
    .banner()
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('npm run cli -- '));
  expect(suggested).toEqual([
    `npm run cli -- key:create --workspace ${workspaceId} --creator demo@example.com --name "my key"`,
    `npm run cli -- credits:balance --workspace ${workspaceId}`,
    'npm run cli -- --help',
  ]);
  const [keyCreate, balance, help] = await Promise.all(suggested.map((line) => run('sh', ['-c', line], stack!.env)));
  expect(keyCreate!.code).toBe(0);
  expect(keyCreate!.stdout).toMatch(
    /Created API key "my key" \(key_[0-9A-Z]{26}, role editor\)\.\nSecret \(shown once, store it now\): cpk_/,
  );
  expect(balance!.code).toBe(0);
  expect(balance!.stdout).toContain('Available 1000, held 0, spent 0.\n');
  expect(help!.code).toBe(0);
  expect(help!.stdout).toContain('campaignctl <command> [options]');
});

it('administers the stack with DATABASE_URL, TEMPORAL_ADDRESS and COOKIE_SECRETS unset', async () => {
  const created = await cli([
    'key:create',
    '--workspace',
    workspaceId,
    '--creator',
    'demo@example.com',
    '--name',
    'ci',
  ]);
  expect(created).toMatchObject({ code: 0, stderr: '' });

  const list = await cli(['key:list', '--workspace', workspaceId, '--json']);
  expect(list).toMatchObject({ code: 0, stderr: '' });
  expect((JSON.parse(list.stdout) as { name: string }[]).map((key) => key.name)).toContain('ci');

  const code = await cli(['callcode:issue', '--profile', 'campaign_ops', '--workspace', workspaceId, '--json']);
  expect(code).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(code.stdout)).toMatchObject({ profile: 'campaign_ops', workspaceId });

  // Needs the secret the stack keeps in its data folder: it decrypts the stored signing keys and encrypts
  // the new one so that the API can read it at its next start.
  const rotated = await cli(['oauth:rotate-signing-key']);
  expect(rotated).toMatchObject({ code: 0, stderr: '' });
  expect(rotated.stdout).toMatch(/^Added signing key es256-[0-9a-f]{16};/);

  // Temporal at the dev server's address, and the stack's worker running the job.
  const job = await cli(['jobs:selftest', '--workspace', workspaceId, '--steps', '2', '--step-ms', '50', '--wait']);
  expect(job).toMatchObject({ code: 0, stderr: '' });
  expect(job.stdout).toMatch(/Job job_[0-9A-Z]{26} ended: succeeded\.\n$/);
});

describe('a start-up failure is one line on stderr and a non-zero exit', () => {
  it.each([
    [
      'a cookie secret that is not the stack’s',
      () => ({ args: ['key:list', '--workspace', workspaceId], env: { COOKIE_SECRETS: 'x'.repeat(32) } }),
      1,
      /^The cookie secret does not decrypt the OAuth signing keys stored in 127\.0\.0\.1:\d+\/campaign_platform: the CLI used COOKIE_SECRETS, which is not the API's\. Set COOKIE_SECRETS to the API's secret\(s\)\.\n$/,
    ],
    [
      'no PostgreSQL where the CLI looks',
      async () => ({
        args: ['credits:balance', '--workspace', workspaceId],
        env: { EMBEDDED_POSTGRES_PORT: String(await freePort()) },
      }),
      1,
      /^Cannot reach PostgreSQL at 127\.0\.0\.1:\d+\/campaign_platform \(connect ECONNREFUSED [^)]+\)\. Is the platform running \(npm start\)\? Otherwise set DATABASE_URL\.\n$/,
    ],
    [
      'PostgreSQL refusing the credentials of a given DATABASE_URL',
      () => ({
        args: ['key:list', '--workspace', workspaceId],
        env: {
          DATABASE_URL: `postgres://postgres:not-the-password@127.0.0.1:${stack!.env.EMBEDDED_POSTGRES_PORT}/campaign_platform`,
        },
      }),
      1,
      /^PostgreSQL at 127\.0\.0\.1:\d+\/campaign_platform refused the credentials \(password authentication failed for user "postgres"\)\. Check DATABASE_URL\.\n$/,
    ],
    [
      'no Temporal where a job command looks',
      async () => ({
        args: ['jobs:selftest', '--workspace', workspaceId],
        env: { TEMPORAL_DEV_PORT: String(await freePort()) },
      }),
      1,
      /^Cannot reach Temporal at 127\.0\.0\.1:\d+ \([^\n]+\)\. Is the platform running \(npm start\)\? Otherwise set TEMPORAL_ADDRESS\.\n$/,
    ],
    [
      'an invalid setting',
      () => ({ args: ['key:list', '--workspace', workspaceId], env: { EMBEDDED_POSTGRES_PORT: 'abc' } }),
      78,
      /^Invalid configuration: EMBEDDED_POSTGRES_PORT must be a number \(see \.env\.example\)\.\n$/,
    ],
    [
      'an unknown command',
      () => ({ args: ['keys:list'], env: {} }),
      2,
      /^Unknown command "keys:list"; "campaignctl --help" lists the commands\.\n$/,
    ],
  ])('%s', async (_case, given, exitCode, line) => {
    const { args, env } = await given();
    const result = await cli(args, env);
    expect(result.stderr).toMatch(line);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stdout).toBe('');
    expect(result.code).toBe(exitCode);
  });
});
