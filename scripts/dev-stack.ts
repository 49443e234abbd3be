/**
 * `npm start`: runs the whole platform on one machine.
 *
 * Starts, as needed, the embedded PostgreSQL (when DATABASE_URL is unset) and the Temporal dev server (when
 * TEMPORAL_ADDRESS is unset), applies migrations, seeds demo data on the first run, then runs the API and the
 * worker as child processes. Ctrl-C stops them in order (API and worker first, then Temporal, then
 * PostgreSQL); the next start reuses the data in DATA_DIR.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfigOrExit, processEnv } from '../src/config.ts';
import { createOrm, migrateToLatest } from '../src/db/orm.ts';
import { DEMO_EMAIL, findDemoWorkspace, seedDemoIfEmpty, type DemoSeed } from '../src/db/seed-demo.ts';
import { startEmbeddedPostgres, type RunningPostgres } from '../src/dev/embedded-postgres.ts';
import { LocalSecretError, localServices, resolveLocalConfig } from '../src/dev/local-services.ts';
import { locateTemporalCli, TemporalCliUnavailableError } from '../src/dev/temporal-cli.ts';
import { startTemporalDevServer, type RunningTemporal } from '../src/dev/temporal-dev-server.ts';
import { createCreditsService } from '../src/domain/credits/credits.service.ts';
import { createWorkspacesService } from '../src/domain/workspaces/workspaces.service.ts';

const env = processEnv();
const config = loadConfigOrExit(env);
// What to start, and where: the same description the CLI uses to find these services.
const local = localServices(config);
const say = (line: string) => process.stdout.write(`[stack] ${line}\n`);

let postgres: RunningPostgres | undefined;
let temporal: RunningTemporal | undefined;
const children = new Map<string, ChildProcess>();
let stopping = false;

async function stopAll(code: number): Promise<never> {
  if (stopping) process.exit(code);
  stopping = true;
  say('stopping…');
  await Promise.all(
    [...children.values()].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 35_000).unref();
        }),
    ),
  );
  if (temporal) await temporal.stop().catch((error) => say(`Temporal did not stop cleanly: ${String(error)}`));
  if (postgres) await postgres.stop().catch((error) => say(`PostgreSQL did not stop cleanly: ${String(error)}`));
  say('stopped.');
  process.exit(code);
}

process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

function run(name: string, entry: string, childEnv: Record<string, string | undefined>): ChildProcess {
  // Own process group: a terminal Ctrl-C reaches only this script, which then stops the children in order.
  const child = spawn(process.execPath, [entry], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const prefix = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line) process.stdout.write(`[${name}] ${line}\n`);
  };
  child.stdout?.on('data', prefix);
  child.stderr?.on('data', prefix);
  child.once('exit', (code, signal) => {
    if (!stopping) {
      say(`${name} exited unexpectedly (${signal ?? `code ${code}`}); stopping the stack`);
      void stopAll(1);
    }
  });
  children.set(name, child);
  return child;
}

async function waitForApi(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const target = new URL(url);
  while (Date.now() < deadline) {
    // Connect to the listening address, naming the platform host (it may not resolve outside browsers).
    const status = await new Promise<number>((resolve) => {
      const request = http.get(
        {
          host: '127.0.0.1',
          port: config.http.port,
          path: '/.well-known/oauth-protected-resource/mcp',
          headers: { host: target.host },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.once('error', () => resolve(0));
    });
    if (status === 200) return;
    await sleep(300);
  }
  throw new Error(`the API did not answer within ${timeoutMs} ms`);
}

function banner(temporalUi: string | null, seed: DemoSeed | null, demoWorkspace: string | null): string {
  const mcp = config.urls.mcp;
  const lines = [
    '',
    'Campaign platform is running.',
    `  Application (dashboard):  ${config.urls.platform}`,
    `  MCP endpoint:             ${mcp}`,
    `  Authorization server:     ${config.urls.auth}`,
    `  Root public site:         ${config.urls.base}`,
    `  Temporal UI:              ${temporalUi ?? config.temporal.uiUrl ?? '(external Temporal; see its own UI)'}`,
    `  Data folder:              ${config.dataDir}`,
  ];
  if (seed) {
    lines.push(
      '',
      'First run: demo data created (shown once; the API key secret is not stored anywhere):',
      `  Sign-in:    ${seed.email} / ${seed.password}`,
      `  Workspace:  ${seed.workspaceName} (${seed.workspaceId})`,
      `  API key:    ${seed.apiKey}`,
      '',
      'Try it:',
      `  curl -s ${mcp} -H 'x-api-key: ${seed.apiKey}' -H 'content-type: application/json' \\`,
      `    -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_platform_info","arguments":{"topic":"health"}}}'`,
    );
  }
  // Runnable as printed: the CLI finds this stack's services by the same rule (src/dev/local-services.ts),
  // given the same environment (DATA_DIR, the ports) as this process.
  const workspace = demoWorkspace ?? '<workspace id>';
  lines.push(
    '',
    'Operator CLI (run it with the same environment as this stack):',
    `  npm run cli -- key:create --workspace ${workspace} --creator ${DEMO_EMAIL} --name "my key"`,
    `  npm run cli -- credits:balance --workspace ${workspace}`,
    '  npm run cli -- --help',
  );
  lines.push('', 'Press Ctrl-C to stop.', '');
  return lines.join('\n');
}

try {
  const resolved = await resolveLocalConfig(config);
  let databaseUrl = local.databaseUrl;
  if (local.embeddedPostgres) {
    say('starting the embedded PostgreSQL…');
    postgres = await startEmbeddedPostgres({ ...local.embeddedPostgres, onLog: (line) => say(`postgres: ${line}`) });
    // A server left running by an earlier run is reused on the port it listens on; the CLI looks on the
    // configured port, so say when they differ.
    if (postgres.url !== databaseUrl) {
      say(
        `note: PostgreSQL runs on port ${postgres.port}, not EMBEDDED_POSTGRES_PORT=${local.embeddedPostgres.port}; set EMBEDDED_POSTGRES_PORT=${postgres.port} for the CLI`,
      );
    }
    databaseUrl = postgres.url;
  }

  let temporalAddress = local.temporalAddress;
  let temporalUi: string | null = null;
  if (local.embeddedTemporal) {
    const cli = await locateTemporalCli({
      cliPath: config.temporal.cliPath,
      toolsDir: config.temporal.toolsDir,
      searchPath: env.PATH,
      onLog: (line) => say(line),
    });
    say(`starting the Temporal dev server (${cli})…`);
    temporal = await startTemporalDevServer({
      cliPath: cli,
      dataDir: local.embeddedTemporal.dataDir,
      ip: local.embeddedTemporal.host,
      port: local.embeddedTemporal.port,
      uiPort: local.embeddedTemporal.uiPort,
      namespace: config.temporal.namespace,
      onLog: (line) => say(`temporal: ${line}`),
    });
    temporalAddress = temporal.address;
    temporalUi = temporal.uiUrl;
  }

  const orm = await createOrm({ url: databaseUrl });
  const applied = await migrateToLatest(orm);
  if (applied.length) say(`applied migrations: ${applied.join(', ')}`);
  const workspaces = createWorkspacesService();
  const seed = await seedDemoIfEmpty(orm, { workspaces, credits: createCreditsService() });
  const demoWorkspace = seed?.workspaceId ?? (await findDemoWorkspace(orm, { workspaces }))?.id ?? null;
  await orm.close();

  const childEnv = {
    ...env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    COOKIE_SECRETS: resolved.secrets.cookieKeys.join(','),
    CREDENTIAL_KEYS: resolved.secrets.credentialKeys.join(','),
    ...(temporalUi ? { TEMPORAL_UI_URL: temporalUi } : {}),
  };
  run('worker', 'src/worker.ts', childEnv);
  run('api', 'src/main.ts', childEnv);
  await waitForApi(config.urls.platform, 60_000);
  process.stdout.write(banner(temporalUi, seed, demoWorkspace));
} catch (error) {
  // Failures whose message says what to do need no stack trace.
  if (error instanceof TemporalCliUnavailableError || error instanceof LocalSecretError) say(error.message);
  else say(`could not start: ${(error as Error).stack ?? String(error)}`);
  await stopAll(1);
}
