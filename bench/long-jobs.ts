/**
 * Benchmark: long jobs (`npm run bench:jobs`).
 *
 *   1. Start latency: `tools/call generate_campaign` with a quote, until the task handle comes back (a
 *      2025-11-25 client asking for a task), p50/p95 over BENCH_STARTS starts (default 200); baseline in the
 *      same run: `tools/call query_campaigns get` (a cheap authenticated read) over the same client.
 *      Target: p95 under 150 ms.
 *   2. Throughput: generations completed per minute by one worker with the built-in engines (images on, one
 *      variant each), against the bare job mechanism (the selftest workflow, one no-op step) in the same run.
 *
 * The platform and the client share this process (a real HTTP server on loopback); the worker runs in its own
 * process (`src/worker.ts`), as deployed, so the generations started while latency is measured execute there
 * and compete for the machine's cores but not for the API's event loop. PostgreSQL and Temporal come from the
 * bench stack (embedded PostgreSQL and the Temporal dev server unless configured).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../src/config.ts';
import { createContainer } from '../src/container.ts';
import { Job } from '../src/domain/jobs/job.entity.ts';
import { createHttpApp } from '../src/http/app.ts';
import { createLogger } from '../src/logger.ts';
import { loopbackAwareFetch, closeLoopbackAwareFetch } from '../src/net/loopback-aware-fetch.ts';
import { spawnLogged } from '../test/support/logged-process.ts';
import { freePort, startBenchStack } from './support/stack.ts';
import { acrossWorkspaces, workspaceScope, withEntityManager, actors } from '../src/domain/shared/scope.ts';

const STARTS = Number(process.env.BENCH_STARTS ?? 200);
const THROUGHPUT_JOBS = Number(process.env.BENCH_JOBS ?? 60);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1]! };
}

const stack = await startBenchStack('jobs');
const port = await freePort();
const env = {
  NODE_ENV: 'test',
  HTTP_PORT: String(port),
  DATABASE_URL: stack.databaseUrl,
  TEMPORAL_ADDRESS: stack.temporalAddress,
  TEMPORAL_TASK_QUEUE: `bench-jobs-${Date.now()}`,
  RATE_LIMIT_PER_MINUTE: '100000',
  DATA_DIR: '.data/bench',
};
const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
const log = createLogger({ level: 'silent', name: 'bench' });
const container = await createContainer(config, { log });
const { listener, close: closeApp } = createHttpApp(container);
const server = http.createServer(listener);
await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
// It logs at info level only so that its "worker running" line says it is polling.
const worker = spawnLogged(
  'src/worker.ts',
  { ...env, PATH: process.env.PATH ?? '', LOG_LEVEL: 'info' },
  '"worker running"',
  'worker',
);
await worker.ready;

try {
  const { workspaces, credits } = container.services;
  const em = acrossWorkspaces(container.orm.em);
  const owner = await workspaces.createUser(em, { email: `bench-jobs-${Date.now()}@example.test`, name: 'Bench' });
  const workspace = await workspaces.createWorkspace(em, { name: 'Bench jobs', ownerUserId: owner.id });
  await credits.grant(em, {
    workspaceId: workspace.id,
    amount: 1_000_000,
    idempotencyKey: `bench:${workspace.id}`,
    actor: 'operator',
  });
  const { secret } = await workspaces.createApiKey(em, workspace.id, {
    name: 'bench',
    role: 'owner',
    createdByUserId: owner.id,
  });
  const scope = workspaceScope(container.orm.em, workspace.id, actors.operator);
  const product = await container.services.products.create(scope, {
    title: 'Bench product',
    description: 'A product for the benchmark. It is sturdy and light.',
    price: 10,
    currency: 'EUR',
  });

  const client = new Client({ name: 'bench-jobs', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(config.urls.mcp), {
      fetch: loopbackAwareFetch,
      requestInit: { headers: { 'x-api-key': secret } },
    }),
  );

  // --- 1. start latency --------------------------------------------------------------------------------
  const args = (i: number) => ({
    mode: 'start',
    intent: `Benchmark launch number ${i}`,
    productIds: [product.id],
    variantCount: 1,
    includeImages: false,
  });
  const quotes: string[] = [];
  for (let i = 0; i < STARTS + 20; i += 1) {
    const quoted = await client.callTool({ name: 'generate_campaign', arguments: args(i) });
    quotes.push((quoted.structuredContent as { quote: { id: string } }).quote.id);
  }
  const campaign = await container.services.campaigns.create(
    withEntityManager(scope, acrossWorkspaces(container.orm.em)),
    {
      name: 'Read target',
    },
  );
  const reads: number[] = [];
  const starts: number[] = [];
  // Warm-up: 20 of each, not measured. Then interleave so both see the same machine conditions.
  for (let i = 0; i < STARTS + 20; i += 1) {
    let t = performance.now();
    await client.callTool({ name: 'query_campaigns', arguments: { action: 'get', campaignId: campaign.id } });
    if (i >= 20) reads.push(performance.now() - t);
    t = performance.now();
    const created = await client.request(
      {
        method: 'tools/call',
        params: { name: 'generate_campaign', arguments: { ...args(i), quoteId: quotes[i] }, task: {} },
      },
      CreateTaskResultSchema,
    );
    if (i >= 20) starts.push(performance.now() - t);
    if (!created.task.taskId) throw new Error('no task handle');
  }
  const read = summary(reads);
  const start = summary(starts);
  console.log(`\nStart latency over ${STARTS} calls (ms)`);
  console.table({
    'query_campaigns get (baseline)': { p50: read.p50.toFixed(1), p95: read.p95.toFixed(1), max: read.max.toFixed(1) },
    'generate_campaign start → task handle': {
      p50: start.p50.toFixed(1),
      p95: start.p95.toFixed(1),
      max: start.max.toFixed(1),
    },
  });
  console.log(
    `start p95 / read p95 = ${(start.p95 / read.p95).toFixed(2)}×; target p95 < 150 ms: ${start.p95 < 150 ? 'met' : 'NOT met'}`,
  );

  // Let the backlog of started generations drain before measuring throughput.
  const drain = async (kind: string) => {
    for (;;) {
      const open = await acrossWorkspaces(container.orm.em).count(Job, {
        workspace: workspace.id,
        kind,
        status: { $nin: ['succeeded', 'failed', 'cancelled'] },
      });
      if (open === 0) return;
      await sleep(200);
    }
  };
  await drain('campaign_generation');

  // --- 2. throughput -----------------------------------------------------------------------------------
  const timed = async (label: string, launch: (i: number) => Promise<unknown>, kind: string) => {
    const t = performance.now();
    for (let i = 0; i < THROUGHPUT_JOBS; i += 1) await launch(i);
    await drain(kind);
    const minutes = (performance.now() - t) / 60_000;
    return { label, jobs: THROUGHPUT_JOBS, perMinute: THROUGHPUT_JOBS / minutes };
  };
  const baseline = await timed(
    'selftest job (baseline: the job mechanism alone)',
    (i) =>
      container.services.jobs.start(withEntityManager(scope, acrossWorkspaces(container.orm.em)), {
        kind: 'selftest',
        workflowType: 'selftestWorkflow',
        businessKey: `bench-${Date.now()}-${i}`,
        input: { steps: 1, stepMs: 0 },
        summary: 'bench',
      }),
    'selftest',
  );
  const generation = await timed(
    'campaign generation, built-in engines, images on',
    async (i) => {
      const s = withEntityManager(scope, acrossWorkspaces(container.orm.em));
      const a = { intent: `Throughput run ${i}`, productIds: [product.id], variantCount: 1, includeImages: true };
      const q = await container.services.generation.start(s, a);
      if (q.status !== 'quote_required') throw new Error('expected a quote');
      await container.services.generation.start(withEntityManager(s, acrossWorkspaces(container.orm.em)), {
        ...a,
        quoteId: q.quote.id,
      });
    },
    'campaign_generation',
  );
  console.log(`\nJobs completed per minute, one worker (${THROUGHPUT_JOBS} jobs each)`);
  console.table(
    Object.fromEntries(
      [baseline, generation].map((r) => [
        r.label,
        {
          'jobs/min': r.perMinute.toFixed(0),
          'vs baseline': `${((r.perMinute / baseline.perMinute) * 100).toFixed(1)}%`,
        },
      ]),
    ),
  );
  await client.close();
} finally {
  await worker.kill('SIGTERM');
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await closeApp();
  await container.close();
  await closeLoopbackAwareFetch();
  await stack.stop();
}
process.exit(0);
