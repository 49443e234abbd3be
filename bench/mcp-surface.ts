/**
 * Benchmark: the MCP surface against a bare Koa JSON route, measured in the same run on the same machine
 * (`npm run bench:mcp`). ARCHITECTURE §8 budget: `tools/call` of a read-only tool (auth + rate limit + one
 * indexed read) and `tools/list` sustain at least 40% of the bare route's throughput with p99 under 50 ms at
 * 50 connections, and the heap stays flat over 100k requests.
 *
 * Cases, each after a warm-up:
 *   - bare Koa JSON route (the baseline);
 *   - the same route behind request id, Origin check, API-key authentication and the PostgreSQL limiter,
 *     no MCP (for attribution only: how much of a tool call is the edge);
 *   - a bare Koa route answering the ~66 KB tool listing as a JSON-RPC result (for attribution only: what
 *     sending the `tools/list` answer costs here with no MCP, auth or database at all);
 *   - `tools/call query_campaigns {action: list}` and `tools/list`, each in the 2026-07-28 era (SDK v2
 *     client pinned to it) and in the 2025-11-25 era (SDK v1 client; the server answers it statelessly).
 * The request bytes are what those real clients send: one call of each is recorded through a real client
 * first and then replayed by autocannon with a fresh JSON-RPC id and a rotating API key per request (200
 * keys, so the limiter — raised for the run so it counts but never refuses — works on many rows). Every
 * answer is checked: status 2xx, a JSON-RPC result (no error, no `isError`) carrying this request's id, and,
 * for every 100th answer, the full parsed result (20 campaigns, or every tool of `external_default`).
 *
 * CPU ceilings: for the edge and every MCP case, the CPU each request cost the platform, PostgreSQL and the
 * load generator together, and the throughput that cost allows on this machine's cores however well it is
 * scheduled, next to the per-request budget that the 40% target leaves.
 *
 * Heap: BENCH_HEAP_REQUESTS (default 100,000) `tools/call` requests, alternating eras, against the platform
 * process; its heap is read over IPC after two forced full collections (`--expose-gc`) at 0, ¼, ½, ¾ and
 * all of them. Flat: growth from the first to the last sample under BENCH_HEAP_TOLERANCE (default 10%).
 *
 * Environment: BENCH_SECONDS (10) per measured case, BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (50),
 * BENCH_HEAP_REQUESTS (100000; 0 skips), BENCH_PROFILE=1 to record a CPU profile of the server during one
 * extra `tools/call` run and print where the time goes. Exit code 1 when a target is missed.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CATALOGUE } from '../src/mcp/registry.ts';
import { closeLoopbackAwareFetch } from '../src/net/loopback-aware-fetch.ts';
import { recordingFetch, type RecordedRequest } from './support/recording-fetch.ts';
import { checkedLoad, type CheckedLoadResult, type PreparedRequest } from './support/checked-load.ts';
import { printCpuProfile } from './support/cpu-profile-summary.ts';
import { postgresBackendCpuMs, postgresCpuBetween } from './support/postgres-cpu.ts';
import { startIpcServerProcess, type IpcServerProcess } from './support/ipc-server-process.ts';
import type { McpBenchCommand, McpBenchReady, McpBenchReply } from './support/mcp-bench-protocol.ts';
import { freePort, startBenchStack } from './support/stack.ts';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const duration = Number(process.env.BENCH_SECONDS ?? 10);
const warmUp = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const heapRequests = Number(process.env.BENCH_HEAP_REQUESTS ?? 100_000);
const heapTolerance = Number(process.env.BENCH_HEAP_TOLERANCE ?? 0.1);
const profile = process.env.BENCH_PROFILE === '1';
const TARGET_RATIO = 0.4;
const TARGET_P99_MS = 50;
const PAGE_SIZE = 20; // query_campaigns list default page (src/domain/shared/pagination.ts)
/** What an API key without a call code sees (14 until query_analytics joins in a later issue). */
const EXTERNAL_DEFAULT_TOOLS = CATALOGUE.get('external_default')!.listing.length;
const DEEP_CHECK_EVERY = 100;

type Server = IpcServerProcess<McpBenchReady, McpBenchCommand, McpBenchReply>;

interface Case {
  label: string;
  url: string;
  method: 'GET' | 'POST';
  prepare(n: number): PreparedRequest<Expectation>;
}

/** Records `tools/call query_campaigns list` and `tools/list` as the SDK client of one era sends them. */
async function recordEra(era: 'modern' | 'legacy', mcpUrl: string, apiKey: string) {
  const recorded = new Map<string, RecordedRequest>();
  const transportOptions = { fetch: recordingFetch(recorded), requestInit: { headers: { 'x-api-key': apiKey } } };
  const client =
    era === 'modern'
      ? new ClientV2({ name: 'bench-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
      : new ClientV1({ name: 'bench-v1', version: '1.0.0' });
  const transport =
    era === 'modern'
      ? new TransportV2(new URL(mcpUrl), transportOptions)
      : new TransportV1(new URL(mcpUrl), transportOptions);
  await (client.connect as (transport: unknown) => Promise<void>)(transport);
  const call = (await client.callTool({ name: 'query_campaigns', arguments: { action: 'list' } })) as {
    isError?: boolean;
  };
  if (call.isError) throw new Error(`query_campaigns list failed through the ${era} client: ${JSON.stringify(call)}`);
  await client.listTools();
  await client.close();
  const toolsCall = recorded.get('tools/call');
  const toolsList = recorded.get('tools/list');
  if (!toolsCall || !toolsList) throw new Error(`the ${era} client sent no tools/call or tools/list`);
  const version = toolsCall.headers['mcp-protocol-version'];
  const expected = era === 'modern' ? '2026-07-28' : '2025-11-25';
  if (version !== expected) throw new Error(`the ${era} client sent MCP-Protocol-Version ${version}, not ${expected}`);
  return { toolsCall, toolsList, version };
}

type Expectation = { id: number; kind: 'call' | 'list' | 'ok' };

/** Cheap checks on every answer; the full result on every DEEP_CHECK_EVERY-th. */
function checkAnswer(body: string, expected: Expectation): string | null {
  if (expected.kind === 'ok') return body === '{"ok":true}' ? null : `unexpected body ${body.slice(0, 200)}`;
  if (!body.includes(`"id":${expected.id},`) && !body.endsWith(`"id":${expected.id}}`)) {
    return `answer does not carry request id ${expected.id}: ${body.slice(0, 200)}`;
  }
  if (body.includes('"isError":true')) return `isError result: ${body.slice(0, 300)}`;
  if (!body.startsWith('{"result":') && !body.includes('"result":{')) return `not a result: ${body.slice(0, 300)}`;
  if (expected.id % DEEP_CHECK_EVERY !== 0) return null;
  const parsed = JSON.parse(body) as {
    id?: number;
    error?: unknown;
    result?: { isError?: boolean; tools?: unknown[]; structuredContent?: { action?: string; campaigns?: unknown[] } };
  };
  if (parsed.error || !parsed.result || parsed.id !== expected.id) return `bad JSON-RPC answer: ${body.slice(0, 300)}`;
  if (expected.kind === 'list') {
    return parsed.result.tools?.length === EXTERNAL_DEFAULT_TOOLS
      ? null
      : `tools/list returned ${parsed.result.tools?.length} tools`;
  }
  const content = parsed.result.structuredContent;
  return !parsed.result.isError && content?.action === 'list' && content.campaigns?.length === PAGE_SIZE
    ? null
    : `query_campaigns list returned ${JSON.stringify(parsed.result).slice(0, 300)}`;
}

function mcpRequests(info: McpBenchReady, recorded: RecordedRequest, kind: 'call' | 'list') {
  // The platform is chosen by its host name; autocannon connects to 127.0.0.1 and names the host.
  const host = new URL(info.mcpUrl).host;
  return (n: number): PreparedRequest<Expectation> => ({
    headers: { ...recorded.headers, host, 'x-api-key': info.keys[n % info.keys.length]! },
    body: JSON.stringify({ ...recorded.body, id: n }),
    expect: { id: n, kind },
  });
}

/** A measured case, with where the CPU went while it ran (the machine is shared by all three parties). */
interface CaseResult extends CheckedLoadResult {
  /** The platform process's CPU time (user + system) per answered request, ms. */
  serverCpuMs: number;
  /** The platform process's CPU use, in cores (1 = one core saturated). */
  serverCores: number;
  /** The PostgreSQL backends of the benchmark database, in cores (null where /proc is not available). */
  postgresCores: number | null;
  /** This process (autocannon) in cores. */
  loadCores: number;
  /** The whole machine in cores, of os.availableParallelism(); what the three above do not explain is
   * other work on the machine (other processes, kernel), which makes the figures of that case less reliable. */
  machineCores: number;
}

function machineBusyMs(): number {
  return os.cpus().reduce((sum, cpu) => sum + cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq, 0);
}

async function serverCpuMicros(server: Server): Promise<number> {
  const reply = await server.command({ type: 'cpu' });
  if (reply.type !== 'cpu') throw new Error(`unexpected reply ${reply.type}`);
  return reply.usage.user + reply.usage.system;
}

async function measured(server: Server, database: string, load: () => Promise<CheckedLoadResult>): Promise<CaseResult> {
  const serverBefore = await serverCpuMicros(server);
  const postgresBefore = await postgresBackendCpuMs(database);
  const [selfBefore, machineBefore] = [process.cpuUsage(), machineBusyMs()];
  const result = await load();
  const self = process.cpuUsage(selfBefore);
  const machineMs = machineBusyMs() - machineBefore;
  const postgresAfter = await postgresBackendCpuMs(database);
  const serverMicros = (await serverCpuMicros(server)) - serverBefore;
  const wallMs = result.durationSeconds * 1000;
  return {
    ...result,
    serverCpuMs: serverMicros / 1000 / Math.max(1, result.total),
    serverCores: serverMicros / 1000 / wallMs,
    postgresCores: postgresBefore && postgresAfter ? postgresCpuBetween(postgresBefore, postgresAfter) / wallMs : null,
    loadCores: (self.user + self.system) / 1000 / wallMs,
    machineCores: machineMs / wallMs,
  };
}

/** Cores busy with work that is none of the three parties (other processes on a shared machine, the kernel). */
function otherCores(r: CaseResult): number {
  return r.machineCores - r.serverCores - (r.postgresCores ?? 0) - r.loadCores;
}

function formatTable(baseline: CaseResult, rows: CaseResult[]) {
  return [baseline, ...rows].map((r) => ({
    case: r.label,
    'req/s': Math.round(r.requestsPerSecond),
    'p50 ms': r.p50,
    'p99 ms': r.p99,
    requests: r.total,
    errors: r.errors,
    'non-2xx': r.non2xx,
    invalid: r.invalid,
    'vs baseline': `${((r.requestsPerSecond / baseline.requestsPerSecond) * 100).toFixed(1)}%`,
    'server CPU ms/req': r.serverCpuMs.toFixed(3),
    'cores: platform/pg/load/other': [r.serverCores, r.postgresCores, r.loadCores, otherCores(r)]
      .map((cores) => (cores === null ? '?' : cores.toFixed(2)))
      .join('/'),
  }));
}

/**
 * Whether a case could reach the target at all on this machine, whatever the scheduling: a request that costs
 * C ms of CPU in total (platform + PostgreSQL + load generator) caps throughput at cores ÷ C, however well the
 * work is spread. Printed so the gap to the target reads as a measurement, not an opinion.
 */
function printCpuCeilings(baseline: CaseResult, rows: CaseResult[]) {
  const cores = os.availableParallelism();
  const budgetMs = (cores * 1000) / (TARGET_RATIO * baseline.requestsPerSecond);
  console.log(
    `\nCPU ceilings: at ${TARGET_RATIO * 100}% of this run's baseline (${Math.round(TARGET_RATIO * baseline.requestsPerSecond)} req/s) the ${cores} cores allow ${budgetMs.toFixed(3)} ms of CPU per request, all parties together`,
  );
  for (const r of rows) {
    if (r.postgresCores === null) continue;
    // A party's cores over the run, as CPU ms per answered request.
    const perRequestMs = (partyCores: number) => (partyCores * r.durationSeconds * 1000) / Math.max(1, r.total);
    const [postgresMs, loadMs] = [perRequestMs(r.postgresCores), perRequestMs(r.loadCores)];
    const totalMs = r.serverCpuMs + postgresMs + loadMs;
    const ceiling = (cores * 1000) / totalMs;
    console.log(
      `  ${r.label}: platform ${r.serverCpuMs.toFixed(3)} + PostgreSQL ${postgresMs.toFixed(3)} + load ${loadMs.toFixed(3)} = ${totalMs.toFixed(3)} ms per request → at most ${Math.round(ceiling)} req/s (${((ceiling / baseline.requestsPerSecond) * 100).toFixed(1)}% of baseline)${postgresMs > budgetMs ? '; PostgreSQL alone exceeds the budget' : ''}`,
    );
  }
}

async function serverMemory(server: Server): Promise<NodeJS.MemoryUsage> {
  const reply = await server.command({ type: 'heap' });
  if (reply.type !== 'heap') throw new Error(`unexpected reply ${reply.type}`);
  return reply.memory;
}

/** Records a CPU profile of the platform process while `c` runs, and prints where its time went. */
async function profileCase(server: Server, c: Case, run: (c: Case) => Promise<CaseResult>): Promise<void> {
  const file = path.resolve('.data/bench', `mcp-surface-${Date.now()}.cpuprofile`);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await server.command({ type: 'profile:start' });
  const profiled = await run(c);
  await server.command({ type: 'profile:stop', path: file });
  await printCpuProfile(
    file,
    profiled.total,
    `CPU profile of the platform process during ${profiled.total} × ${c.label} (${Math.round(profiled.requestsPerSecond)} req/s, ${profiled.serverCpuMs.toFixed(3)} ms of process CPU per request while profiled)`,
  );
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
let failed = false;
const stack = await startBenchStack('mcp');
let server: Server | undefined;
try {
  server = await startIpcServerProcess<McpBenchReady, McpBenchCommand, McpBenchReply>('bench/servers/mcp-server.ts', {
    execArgv: ['--expose-gc'],
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      HTTP_PORT: String(await freePort()),
      DATABASE_URL: stack.databaseUrl,
      TEMPORAL_ADDRESS: stack.temporalAddress,
      RATE_LIMIT_PER_MINUTE: '100000',
      DATABASE_POOL_MAX: '20',
    },
  });
  const info = server.info;
  const bootHeap = await serverMemory(server);
  const modern = await recordEra('modern', info.mcpUrl, info.keys[0]!);
  const legacy = await recordEra('legacy', info.mcpUrl, info.keys[0]!);
  await closeLoopbackAwareFetch();
  const database = new URL(stack.databaseUrl).pathname.slice(1);
  const appUrl = `http://127.0.0.1:${info.app}${new URL(info.mcpUrl).pathname}`;

  const plain = (label: string, port: number, withKey: boolean): Case => ({
    label,
    url: `http://127.0.0.1:${port}/`,
    method: 'GET',
    prepare: (n: number): PreparedRequest<Expectation> => ({
      headers: withKey ? { 'x-api-key': info.keys[n % info.keys.length]! } : {},
      expect: { id: n, kind: 'ok' },
    }),
  });
  const mcp = (label: string, recorded: RecordedRequest, kind: 'call' | 'list'): Case => ({
    label,
    url: appUrl,
    method: 'POST',
    prepare: mcpRequests(info, recorded, kind),
  });
  const baselineCase = plain('bare Koa JSON route (baseline)', info.bare, false);
  const edgeCase = plain('edge only: auth + rate limit, no MCP (reference)', info.guarded, true);
  const listingCase: Case = {
    label: 'bare Koa route sending the tools/list answer (reference)',
    url: `http://127.0.0.1:${info.bareListing}/`,
    method: 'POST',
    prepare: (n) => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...modern.toolsList.body, id: n }),
      expect: { id: n, kind: 'list' },
    }),
  };
  const mcpCases = [
    mcp(`tools/call query_campaigns list, ${modern.version}`, modern.toolsCall, 'call'),
    mcp(`tools/call query_campaigns list, ${legacy.version} stateless`, legacy.toolsCall, 'call'),
    mcp(`tools/list, ${modern.version}`, modern.toolsList, 'list'),
    mcp(`tools/list, ${legacy.version} stateless`, legacy.toolsList, 'list'),
  ];
  const run = (c: Case, seconds: number) =>
    measured(server!, database, () => checkedLoad({ ...c, connections, durationSeconds: seconds, check: checkAnswer }));
  for (const [era, recorded] of [
    [modern.version, modern.toolsCall],
    [legacy.version, legacy.toolsCall],
  ] as const) {
    console.log(`replaying the ${era} client's tools/call: headers ${JSON.stringify(recorded.headers)}`);
    console.log(`  body ${JSON.stringify(recorded.body)}`);
  }

  // Warm up every path (JIT, connection pools, the limiter's rows) before measuring.
  for (const c of [baselineCase, edgeCase, listingCase, ...mcpCases]) {
    const warm = await run(c, warmUp);
    if (warm.invalid > 0 || warm.non2xx > 0 || warm.errors > 0) {
      throw new Error(
        `${c.label} is not answering correctly (${warm.non2xx} non-2xx, ${warm.errors} errors, ${warm.invalid} invalid): ${warm.invalidReasons.join(' | ')}`,
      );
    }
  }
  const baseline = await run(baselineCase, duration);
  const edge = await run(edgeCase, duration);
  const listing = await run(listingCase, duration);
  const results: CaseResult[] = [];
  for (const c of mcpCases) results.push(await run(c, duration));

  console.log(
    `\nMCP surface, ${connections} connections, ${duration} s per case, every answer checked; ${os.availableParallelism()} cores shared by the platform, autocannon and PostgreSQL`,
  );
  console.table(formatTable(baseline, [edge, listing, ...results]));
  const disturbed = [baseline, edge, listing, ...results].filter((r) => otherCores(r) > 0.3);
  if (disturbed.length > 0) {
    console.log(
      `warning: other work used more than 0.3 cores during ${disturbed.map((r) => `"${r.label}"`).join(', ')}; its throughput figures are understated (server CPU ms/req is the steadier figure)`,
    );
  }
  for (const result of [edge, listing, ...results]) {
    for (const reason of result.invalidReasons) console.log(`  invalid answer (${result.label}): ${reason}`);
  }
  for (const result of results) {
    const ratio = result.requestsPerSecond / baseline.requestsPerSecond;
    const clean = result.errors === 0 && result.non2xx === 0 && result.invalid === 0;
    const pass = ratio >= TARGET_RATIO && result.p99 < TARGET_P99_MS && clean;
    failed ||= !pass;
    console.log(
      `${pass ? 'PASS' : 'FAIL'} ${result.label}: ${(ratio * 100).toFixed(1)}% of baseline (target ≥ ${TARGET_RATIO * 100}%), p99 ${result.p99} ms (target < ${TARGET_P99_MS} ms)${clean ? '' : `, ${result.errors} errors, ${result.non2xx} non-2xx, ${result.invalid} invalid`}; platform CPU per request ${(result.serverCpuMs / baseline.serverCpuMs).toFixed(0)}× the baseline's`,
    );
  }
  console.log(
    `reference: the edge alone (auth + rate limit) runs at ${((edge.requestsPerSecond / baseline.requestsPerSecond) * 100).toFixed(1)}% of baseline; tools/call ${modern.version} at ${((results[0]!.requestsPerSecond / edge.requestsPerSecond) * 100).toFixed(1)}% of the edge alone`,
  );
  const percentOfListing = (r: CaseResult) => ((r.requestsPerSecond / listing.requestsPerSecond) * 100).toFixed(1);
  console.log(
    `reference: a bare route sending the same listing runs at ${((listing.requestsPerSecond / baseline.requestsPerSecond) * 100).toFixed(1)}% of baseline; tools/list at ${percentOfListing(results[2]!)}% (${modern.version}) and ${percentOfListing(results[3]!)}% (${legacy.version}) of it`,
  );

  printCpuCeilings(baseline, [edge, ...results]);

  if (profile) {
    for (const c of [mcpCases[0]!, mcpCases[2]!]) await profileCase(server, c, (x) => run(x, duration));
  }

  if (heapRequests > 0) {
    const segments = 4;
    const perSegment = Math.ceil(heapRequests / segments);
    const samples: { after: number; memory: NodeJS.MemoryUsage }[] = [{ after: 0, memory: await serverMemory(server) }];
    const callModern = mcpRequests(info, modern.toolsCall, 'call');
    const callLegacy = mcpRequests(info, legacy.toolsCall, 'call');
    let done = 0;
    let bad = 0;
    for (let segment = 0; segment < segments; segment += 1) {
      const result = await checkedLoad({
        label: 'heap soak',
        url: appUrl,
        connections,
        amount: perSegment,
        method: 'POST',
        // Alternate the eras, so both request paths are soaked; ids keep counting across segments.
        prepare: (n) => (n % 2 === 0 ? callModern : callLegacy)(done + n),
        check: checkAnswer,
      });
      done += result.total;
      bad += result.errors + result.non2xx + result.invalid;
      samples.push({ after: done, memory: await serverMemory(server) });
    }
    const first = samples[0]!.memory.heapUsed;
    const last = samples[samples.length - 1]!.memory.heapUsed;
    const growth = (last - first) / first;
    console.log(
      `\nPlatform heap after forced GC over ${done} tools/call requests (${connections} connections, eras alternating; boot heap before any load ${mb(bootHeap.heapUsed)} MB)`,
    );
    console.table(
      samples.map((s) => ({
        requests: s.after,
        'heapUsed MB': mb(s.memory.heapUsed),
        'vs first': `${(((s.memory.heapUsed - first) / first) * 100).toFixed(1)}%`,
        'heapTotal MB': mb(s.memory.heapTotal),
        'external MB': mb(s.memory.external),
        'rss MB': mb(s.memory.rss),
      })),
    );
    const pass = Math.abs(growth) < heapTolerance && bad === 0;
    failed ||= !pass;
    console.log(
      `${pass ? 'PASS' : 'FAIL'} heap: ${(growth * 100).toFixed(1)}% from the first to the last sample (${((last - first) / done).toFixed(1)} bytes per request; target within ±${heapTolerance * 100}%)${bad ? `, ${bad} failed or invalid answers` : ''}`,
    );
  }
} finally {
  await server?.stop();
  await stack.stop();
}
process.exitCode = failed ? 1 : 0;
