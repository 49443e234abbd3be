/**
 * Benchmark: scale-out (`npm run bench:scale-out`, docs/scaling.md). Two API processes (`node src/main.ts`,
 * the production entry point) and one worker (`node src/worker.ts`) on the same PostgreSQL and Temporal, as a
 * deployment with two API instances behind a load balancer runs them. It shows three things, in one run:
 *
 * 1. The rate limit holds across both: BENCH_RATE_CALLS (200) `tools/call` requests with one API key,
 *    alternating between the two processes as fast as they answer (8 in flight). The limit is an exact
 *    sliding log in PostgreSQL (RATE_LIMIT_PER_MINUTE, 120 by default, per minute in any window), so exactly
 *    120 are accepted and the rest refused with 429, whichever process each one reached.
 * 2. A job started through one process is readable through the other: `generate_campaign` (quote, then start)
 *    through process A, then `query_campaigns generation_status` through process B until the worker has
 *    completed it.
 * 3. `tools/call` throughput (`query_campaigns list`, replayed from a real SDK client's bytes, every answer
 *    checked) with one process against two, same run, same total connections: one process, both processes,
 *    then one process again (the two single-process runs bracket the two-process one, so drift on a shared
 *    machine shows). The ratio two ÷ one is printed. Keys rotate so no key reaches the limit.
 *
 * Each throughput case also prints the cores the two API processes used (from /proc) and how busy the whole
 * machine was: on a machine shared with other work the ratio means little unless the platform got the cores.
 *
 * Environment: BENCH_REQUESTS (6000) answers per throughput case, BENCH_CONNECTIONS (40) in total,
 * BENCH_RATE_CALLS (200). Exit code 1 when the rate limit or the cross-process read does not hold.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loadConfig } from '../src/config.ts';
import { createContainer } from '../src/container.ts';
import { acrossWorkspaces, actors, workspaceScope } from '../src/domain/shared/scope.ts';
import { createLogger } from '../src/logger.ts';
import { closeLoopbackAwareFetch, loopbackAwareFetch } from '../src/net/loopback-aware-fetch.ts';
import { recordingFetch, type RecordedRequest } from './support/recording-fetch.ts';
import { checkedLoad, type CheckedLoadResult, type PreparedRequest } from './support/checked-load.ts';
import { freePort, startBenchStack } from './support/stack.ts';

const requestsPerCase = Number(process.env.BENCH_REQUESTS ?? 6000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 40);
const rateCalls = Number(process.env.BENCH_RATE_CALLS ?? 200);
const RATE_LIMIT = 120; // the platform's default RATE_LIMIT_PER_MINUTE, which the processes run with
const CAMPAIGNS = 30;
const PAGE_SIZE = 20;

interface EntryProcess {
  child: ChildProcess;
  ready: Promise<void>;
  stop(): Promise<void>;
}

/** `node <entry>` with `env`, ready once it logged `readyLine`; its output is shown only if it dies. */
function startEntry(entry: string, env: Record<string, string>, readyLine: string): EntryProcess {
  const child = spawn(process.execPath, [entry], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      // The tail is enough to explain a failure; a process logging per request must not fill the memory.
      output = (output + chunk.toString()).slice(-20_000);
      if (output.includes(readyLine)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}:\n${output.slice(-4000)}`)));
  });
  return {
    child,
    ready,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** CPU seconds (user + system) a process has used so far, from /proc (null where there is none). */
function processCpuSeconds(pid: number | undefined): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return null;
  }
}

/** CPU seconds the whole machine has been busy so far. */
function machineBusySeconds(): number {
  return (
    os.cpus().reduce((sum, cpu) => sum + cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq, 0) / 1000
  );
}

/** Runs `run` and says, in cores, what the two API processes and the whole machine used meanwhile. */
async function withCores<T>(pids: (number | undefined)[], run: () => Promise<T>) {
  const before = pids.map(processCpuSeconds);
  const machineBefore = machineBusySeconds();
  const startedAt = performance.now();
  const result = await run();
  const seconds = (performance.now() - startedAt) / 1000;
  const apiCores = pids.map((pid, i) => {
    const [start, end] = [before[i], processCpuSeconds(pid)];
    return start === null || start === undefined || end === null ? '?' : ((end - start) / seconds).toFixed(2);
  });
  return {
    result,
    apiCores: apiCores.join(' + '),
    machineCores: ((machineBusySeconds() - machineBefore) / seconds).toFixed(2),
  };
}

const stack = await startBenchStack('scale-out');
const processes: EntryProcess[] = [];
let failed = false;
try {
  const [portA, portB, workerHealth] = [await freePort(), await freePort(), await freePort()];
  const dataDir = path.resolve('.data/bench', `scale-out-${Date.now().toString(36)}`);
  // The same settings for every process, as a deployment gives its instances (only the port differs here,
  // since they share a machine). The public URLs are the platform's host names; requests name them in Host.
  const sharedEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    // info: the processes say when they are ready ("API listening", "worker running").
    LOG_LEVEL: 'info',
    BASE_URL: 'http://localhost:3000',
    PLATFORM_URL: 'http://app.localhost:3000',
    AUTH_URL: 'http://auth.localhost:3000',
    BRAND_ROOT_DOMAIN: 'sites.localhost',
    COOKIE_SECRETS: 'bench-scale-out-cookie-secret-0123456789abcdef',
    CREDENTIAL_KEYS: 'bench-scale-out-credential-key-0123456789abcdef',
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    TEMPORAL_TASK_QUEUE: 'bench-scale-out',
    DATA_DIR: dataDir,
    MEDIA_DIR: path.join(dataDir, 'media'),
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
  };

  // Seed through the services: a workspace with a product, campaigns to list, credits, and API keys.
  const config = loadConfig({ ...sharedEnv, NODE_ENV: 'test' });
  const seeder = await createContainer(config, {
    log: createLogger({ level: 'silent', name: 'bench' }),
    migrate: false,
    lazyTemporal: true,
  });
  const em = acrossWorkspaces(seeder.orm.em);
  const { workspaces, products, campaigns, credits } = seeder.services;
  const owner = await workspaces.createUser(em, { email: `scale-out-${Date.now()}@example.test`, name: 'Bench' });
  const workspace = await workspaces.createWorkspace(em, { name: 'Scale-out', ownerUserId: owner.id });
  const scope = workspaceScope(seeder.orm.em, workspace.id, actors.operator);
  const product = await products.create(scope, {
    title: 'Linen shirt',
    description: 'Breathable washed linen, cut loose for hot days.',
    price: 49,
    currency: 'EUR',
  });
  for (let i = 0; i < CAMPAIGNS; i += 1) {
    await campaigns.create(scope, {
      name: `Scale-out campaign ${i}`,
      objective: 'Sell linen shirts before the summer ends',
      productIds: [product.id],
    });
  }
  await credits.grant(em, {
    workspaceId: workspace.id,
    amount: 1000,
    idempotencyKey: `bench-scale-out:${workspace.id}`,
    actor: 'operator',
  });
  // Throughput keys: enough that none reaches the limit within the run (4 cases plus warm-up, < 100 each).
  const loadKeyCount = Math.ceil((requestsPerCase * 4 + 2 * connections * 20) / 100);
  const newKey = async (name: string) =>
    (await workspaces.createApiKey(em, workspace.id, { name, role: 'editor', createdByUserId: owner.id })).secret;
  const [rateKey, jobKey, recordKey] = [await newKey('rate'), await newKey('job'), await newKey('record')];
  const loadKeys: string[] = [];
  for (let i = 0; i < loadKeyCount; i += 1) loadKeys.push(await newKey(`load-${i}`));
  await seeder.close();

  const apiA = startEntry('src/main.ts', { ...sharedEnv, HTTP_PORT: String(portA) }, '"API listening"');
  const apiB = startEntry('src/main.ts', { ...sharedEnv, HTTP_PORT: String(portB) }, '"API listening"');
  const worker = startEntry(
    'src/worker.ts',
    { ...sharedEnv, WORKER_HEALTH_PORT: String(workerHealth) },
    '"worker running"',
  );
  processes.push(apiA, apiB, worker);
  await Promise.all([apiA.ready, apiB.ready, worker.ready]);
  const mcpUrl = (port: number) => `http://app.localhost:${port}/api/mcp`;
  console.log(
    `Two API processes (:${portA}, :${portB}) and one worker on one PostgreSQL and one Temporal; ${os.availableParallelism()} cores.`,
  );

  // A real SDK client (2026-07-28) through each process.
  const connect = async (port: number, key: string, recorded?: Map<string, RecordedRequest>) => {
    const client = new Client({ name: 'bench-scale-out', version: '1.0.0' }, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    } as never);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl(port)), {
        fetch: recorded ? recordingFetch(recorded) : (loopbackAwareFetch as typeof fetch),
        requestInit: { headers: { 'x-api-key': key } },
      }),
    );
    return client;
  };

  // 1. The rate limit across both processes.
  const recorded = new Map<string, RecordedRequest>();
  const recorder = await connect(portA, recordKey, recorded);
  await recorder.callTool({ name: 'query_campaigns', arguments: { action: 'list' } });
  await recorder.close();
  const toolsCall = recorded.get('tools/call');
  if (!toolsCall) throw new Error('the client sent no tools/call');
  const statuses = { A: new Map<number, number>(), B: new Map<number, number>() };
  let next = 0;
  const rateStarted = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < rateCalls) {
        const n = next++;
        const [name, port] = n % 2 === 0 ? (['A', portA] as const) : (['B', portB] as const);
        const response = await loopbackAwareFetch(`http://app.localhost:${port}/api/mcp`, {
          method: 'POST',
          headers: { ...toolsCall.headers, 'x-api-key': rateKey },
          body: JSON.stringify({ ...toolsCall.body, id: n }),
        });
        const body = await response.text();
        if (response.status === 200 && !body.includes('"result":')) throw new Error(`call ${n}: ${body}`);
        statuses[name].set(response.status, (statuses[name].get(response.status) ?? 0) + 1);
      }
    }),
  );
  const rateSeconds = (performance.now() - rateStarted) / 1000;
  const count = (status: number) => (statuses.A.get(status) ?? 0) + (statuses.B.get(status) ?? 0);
  const accepted = count(200);
  const refused = count(429);
  console.log(
    `\n1. Rate limit: ${rateCalls} tools/call with one key, alternating A/B, in ${rateSeconds.toFixed(1)} s: ` +
      `${accepted} accepted (A ${statuses.A.get(200) ?? 0}, B ${statuses.B.get(200) ?? 0}), ` +
      `${refused} refused with 429 (A ${statuses.A.get(429) ?? 0}, B ${statuses.B.get(429) ?? 0}); limit ${RATE_LIMIT} per minute`,
  );
  const expectedAccepted = Math.min(rateCalls, RATE_LIMIT);
  if (rateSeconds >= 60 || accepted !== expectedAccepted || refused !== rateCalls - expectedAccepted) {
    console.log(`   FAILED: expected exactly ${expectedAccepted} accepted and the rest refused, within one minute`);
    failed = true;
  }

  // 2. A job started through A, read through B until the worker completed it.
  const clientA = await connect(portA, jobKey);
  const clientB = await connect(portB, jobKey);
  const args = { mode: 'start', intent: 'Linen shirts for a hot summer', variantCount: 1, includeImages: false };
  const quote = (await clientA.callTool({ name: 'generate_campaign', arguments: args })).structuredContent as {
    quote: { id: string };
  };
  const started = (
    await clientA.callTool({ name: 'generate_campaign', arguments: { ...args, quoteId: quote.quote.id } })
  ).structuredContent as { status: string; campaignId: string; generation: { jobId: string } };
  if (started.status !== 'started') throw new Error(`generation did not start: ${JSON.stringify(started)}`);
  const jobStarted = performance.now();
  let seenOnB: { status: string; jobId?: string } | undefined;
  const seenStatuses = new Set<string>();
  while (performance.now() - jobStarted < 120_000) {
    const answer = (
      await clientB.callTool({
        name: 'query_campaigns',
        arguments: { action: 'generation_status', campaignId: started.campaignId },
      })
    ).structuredContent as { generation?: { status: string; jobId?: string } };
    seenOnB = answer.generation;
    if (seenOnB) seenStatuses.add(seenOnB.status);
    if (seenOnB?.status === 'complete' || seenOnB?.status === 'failed') break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await clientA.close();
  await clientB.close();
  const sameJob = seenOnB?.jobId === undefined || seenOnB.jobId === started.generation.jobId;
  console.log(
    `2. Job ${started.generation.jobId} started through A; read through B: ${[...seenStatuses].join(' → ')} ` +
      `in ${((performance.now() - jobStarted) / 1000).toFixed(1)} s (the worker ran it)`,
  );
  if (seenOnB?.status !== 'complete' || !sameJob) {
    console.log(`   FAILED: B did not see the job complete: ${JSON.stringify(seenOnB)}`);
    failed = true;
  }

  // 3. Throughput: one process against two.
  let sent = 0;
  const prepare = (): PreparedRequest<number> => {
    const n = sent++;
    return {
      headers: { ...toolsCall.headers, host: 'app.localhost', 'x-api-key': loadKeys[n % loadKeys.length]! },
      body: JSON.stringify({ ...toolsCall.body, id: n }),
      expect: n,
    };
  };
  const check = (body: string, id: number) => {
    if (!body.includes(`"id":${id}`)) return `answer without request id ${id}: ${body.slice(0, 200)}`;
    if (body.includes('"isError":true') || !body.includes('"result":')) return `not a result: ${body.slice(0, 200)}`;
    if (id % 100 === 0 && JSON.parse(body).result.structuredContent.campaigns.length !== PAGE_SIZE) {
      return `expected ${PAGE_SIZE} campaigns: ${body.slice(0, 200)}`;
    }
    return null;
  };
  const load = (label: string, port: number, amount: number, conns: number) =>
    checkedLoad({
      label,
      url: `http://127.0.0.1:${port}/api/mcp`,
      connections: conns,
      amount,
      prepare,
      check,
    });
  const onePort = (label: string) => load(label, portA, requestsPerCase, connections);
  const both = async (label: string) => {
    const startedAt = performance.now();
    const [a, b] = await Promise.all([
      load(`${label} A`, portA, requestsPerCase / 2, connections / 2),
      load(`${label} B`, portB, requestsPerCase / 2, connections / 2),
    ]);
    const seconds = (performance.now() - startedAt) / 1000;
    return { a, b, total: a.total + b.total, rps: (a.total + b.total) / seconds, bad: problems(a) + problems(b) };
  };
  const problems = (r: CheckedLoadResult) => r.errors + r.non2xx + r.invalid;

  await Promise.all([
    load('warm-up A', portA, connections * 20, connections / 2),
    load('warm-up B', portB, connections * 20, connections / 2),
  ]);
  const pids = [apiA.child.pid, apiB.child.pid];
  const firstRun = await withCores(pids, () => onePort('one process'));
  const twoRun = await withCores(pids, () => both('two processes'));
  const secondRun = await withCores(pids, () => onePort('one process again'));
  const [first, two, second] = [firstRun.result, twoRun.result, secondRun.result];
  const oneRps = (first.requestsPerSecond + second.requestsPerSecond) / 2;
  console.log(`3. tools/call (query_campaigns list), ${requestsPerCase} answers per case, ${connections} connections:`);
  console.table([
    {
      case: 'one process',
      'req/s': Math.round(first.requestsPerSecond),
      'p99 ms': first.p99,
      bad: problems(first),
      'cores A + B': firstRun.apiCores,
      'machine cores busy': firstRun.machineCores,
    },
    {
      case: 'two processes',
      'req/s': Math.round(two.rps),
      'p99 ms': Math.max(two.a.p99, two.b.p99),
      bad: two.bad,
      'cores A + B': twoRun.apiCores,
      'machine cores busy': twoRun.machineCores,
    },
    {
      case: 'one process again',
      'req/s': Math.round(second.requestsPerSecond),
      'p99 ms': second.p99,
      bad: problems(second),
      'cores A + B': secondRun.apiCores,
      'machine cores busy': secondRun.machineCores,
    },
  ]);
  console.log(
    `   two processes ÷ one process (mean of the runs before and after): ${(two.rps / oneRps).toFixed(2)}` +
      ` on ${os.availableParallelism()} cores shared with PostgreSQL, Temporal, the worker and the load generator`,
  );
  if (problems(first) + problems(second) + two.bad > 0) {
    console.log('   FAILED: some answers were errors, refusals or wrong');
    failed = true;
  }
} finally {
  for (const running of processes) await running.stop();
  await closeLoopbackAwareFetch();
  await stack.stop();
}
process.exit(failed ? 1 : 0);
