/**
 * Metrics and the access log after a scripted session on a real platform (real MCP clients over HTTP, a real
 * worker on the shared Temporal server): every family is exposed, each counter moved by exactly what the
 * session did (read as the difference between a scrape before and one after), no label carries a workspace id
 * or a URL, `/metrics` is served only where configured, the worker's registry and the Temporal SDK's runtime
 * metrics are served on their ports, and each request wrote exactly one access-log line, without secrets.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { freePort } from '../support/global-setup.ts';
import { createKey, createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { connectV1, connectV2, type ConnectedClient } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';
import { acrossWorkspaces, actors, workspaceScope } from '../../src/domain/shared/scope.ts';
import { CreditLedgerEntry } from '../../src/domain/credits/credit-ledger-entry.entity.ts';
import { Job } from '../../src/domain/jobs/job.entity.ts';
import { createLogger } from '../../src/logger.ts';
import { startMetricsServer, type MetricsServer } from '../../src/observability/metrics-endpoint.ts';
import { installWorkerRuntime } from '../../src/observability/temporal-runtime.ts';
import { startWorker, type RunningWorker } from '../../src/worker.ts';

const METRICS_TOKEN = 'metrics-token-0123456789abcdefghijklmnopqrstuvwxyz';
const RATE_LIMIT = 40;

let platform: TestPlatform;
let worker: RunningWorker;
let listener: MetricsServer;
let tenant: Tenant;
let productId: string;
const logLines: string[] = [];

/** The access-log lines written so far, parsed. */
const accessLines = () =>
  logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'request');

beforeAll(async () => {
  const ports = { sdk: await freePort(), app: await freePort(), api: await freePort() };
  const log = createLogger(
    { level: 'info', name: 'test' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    }),
  );
  platform = await startTestPlatform({
    label: 'metrics',
    log,
    env: {
      RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      METRICS_TOKEN,
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(ports.api),
      WORKER_APP_METRICS_PORT: String(ports.app),
      WORKER_METRICS_PORT: String(ports.sdk),
    },
  });
  // The worker process's own set-up: the SDK runtime with its Prometheus exporter, then the worker.
  installWorkerRuntime(platform.config, 'ERROR');
  worker = await startWorker(platform.config, log);
  // What main.ts starts when METRICS_PORT is set.
  listener = await startMetricsServer({
    host: platform.config.metrics.host,
    port: platform.config.metrics.apiPort!,
    token: platform.config.metrics.token,
    scrape: platform.container.metrics.scrape,
    log,
  });
  tenant = await createTenant(platform.container, { credits: 1000 });
  const product = await platform.container.services.products.create(
    workspaceScope(platform.container.orm.em, tenant.workspaceId, actors.operator),
    { title: 'Stoneware mug', description: 'Hand-glazed, holds 350 ml.', price: 24, currency: 'EUR' },
  );
  productId = product.id;
});

afterAll(async () => {
  await listener?.close();
  await worker?.shutdown();
  await platform?.close();
  await closeTestFetch();
});

/** A scrape of one endpoint, as text. */
async function scrape(url: string, token?: string): Promise<string> {
  const response = await testFetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

const apiScrape = () => scrape(`${platform.urls.platform}/metrics`, METRICS_TOKEN);
const workerScrape = () => scrape(`http://127.0.0.1:${platform.config.metrics.workerAppPort}/metrics`, METRICS_TOKEN);

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (label values unescaped). */
function samples(text: string): Sample[] {
  const parsed: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    parsed.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return parsed;
}

/** The sum of a family's samples whose labels include `labels`. */
function total(text: string, name: string, labels: Record<string, string> = {}): number {
  return samples(text)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** How much a family grew between two scrapes. */
const grew = (before: string, after: string, name: string, labels: Record<string, string> = {}) =>
  total(after, name, labels) - total(before, name, labels);

async function rawCall(headers: Record<string, string>, requestId: string) {
  const response = await testFetch(platform.urls.mcp, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  await response.arrayBuffer();
  return response.status;
}

it('counts exactly what a scripted session did, in both processes, with bounded labels and one log line per request', async () => {
  const apiBefore = await apiScrape();
  const workerBefore = await workerScrape();
  const linesBefore = accessLines().length;

  // --- Tool calls over real MCP clients: 4 on the 2026-07-28 era (one refused as invalid), 2 on the 2025 era.
  const modern: ConnectedClient = await connectV2(platform.urls.mcp, { 'x-api-key': tenant.apiKey }, 'modern');
  const legacy: ConnectedClient = await connectV1(platform.urls.mcp, { 'x-api-key': tenant.apiKey });
  try {
    for (let i = 0; i < 2; i += 1) {
      expect((await modern.callTool('query_campaigns', { action: 'list' })).isError).toBeFalsy();
    }
    const invalid = await modern.callTool('manage_products', { action: 'create' });
    expect(invalid.isError).toBe(true);
    for (let i = 0; i < 2; i += 1) {
      expect((await legacy.callTool('get_platform_info', { topic: 'health' })).isError).toBeFalsy();
    }
    // One generation: a quote, then the start that redeems it (one job, run by the worker).
    const args = {
      mode: 'start',
      intent: 'Sell our mugs',
      productIds: [productId],
      variantCount: 1,
      includeImages: false,
    };
    const quoted = await modern.callTool('generate_campaign', args);
    const quoteId = (quoted.structuredContent as { quote: { id: string } }).quote.id;
    const started = await modern.callTool('generate_campaign', { ...args, quoteId });
    expect(started.isError).toBeFalsy();
  } finally {
    await modern.close();
    await legacy.close();
  }

  // --- Refusals: 3 over the rate limit of another key; 2 unknown keys and 1 request without credentials.
  const limited = await createKey(platform.container, tenant, 'editor');
  const statuses: number[] = [];
  for (let i = 0; i < RATE_LIMIT + 3; i += 1) statuses.push(await rawCall({ 'x-api-key': limited }, `limit-${i}`));
  expect(statuses.filter((s) => s === 429)).toHaveLength(3);
  const unknownKey = `cpk_${'A'.repeat(43)}`;
  expect(await rawCall({ 'x-api-key': unknownKey }, 'unknown-1')).toBe(401);
  expect(await rawCall({ 'x-api-key': unknownKey }, 'unknown-2')).toBe(401);
  expect(await rawCall({}, 'anonymous-1')).toBe(401);

  // --- Analytics: two valid server conversions and one invalid one.
  const conversion = () => ({
    eventId: randomUUID(),
    sessionId: 'A'.repeat(22),
    goal: 'purchase',
    value: 24,
    occurredAt: new Date().toISOString(),
  });
  const converted = await testFetch(`${platform.urls.platform}/api/v1/conversions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey, 'x-request-id': 'conversions-1' },
    body: JSON.stringify({ conversions: [conversion(), conversion(), { eventId: 'not-a-uuid' }] }),
  });
  expect(await converted.json()).toMatchObject({ accepted: 2, duplicates: 0 });

  // The authorization server's metadata, answered by oidc-provider's own router.
  expect((await testFetch(`${platform.urls.auth}/.well-known/oauth-authorization-server`)).status).toBe(200);

  // The job ends in the worker; its count is the last thing the ending activity does.
  const workerAfter = await pollUntil(
    workerScrape,
    (text) => grew(workerBefore, text, 'cp_jobs_finished_total', { kind: 'campaign_generation' }) > 0,
    { timeoutMs: 30_000, intervalMs: 100, timeoutMessage: 'the generation job never finished' },
  );
  const apiAfter = await apiScrape();

  // Tool calls, by tool, action, era and outcome: exactly the seven above.
  const calls = (labels: Record<string, string>) => grew(apiBefore, apiAfter, 'cp_mcp_tool_calls_total', labels);
  expect(calls({})).toBe(7);
  expect(calls({ tool: 'query_campaigns', action: 'list', era: 'modern', outcome: 'ok' })).toBe(2);
  expect(calls({ tool: 'manage_products', action: 'create', era: 'modern', outcome: 'validation_failed' })).toBe(1);
  expect(calls({ tool: 'get_platform_info', era: 'legacy', outcome: 'ok' })).toBe(2);
  expect(calls({ tool: 'generate_campaign', action: 'start', era: 'modern', outcome: 'ok' })).toBe(2);
  expect(grew(apiBefore, apiAfter, 'cp_mcp_tool_call_duration_seconds_count')).toBe(7);

  expect(grew(apiBefore, apiAfter, 'cp_rate_limited_total', { policy: 'tool-server' })).toBe(3);
  expect(grew(apiBefore, apiAfter, 'cp_auth_failures_total')).toBe(3);
  expect(grew(apiBefore, apiAfter, 'cp_auth_failures_total', { reason: 'unknown_api_key' })).toBe(2);
  expect(grew(apiBefore, apiAfter, 'cp_auth_failures_total', { reason: 'missing_credentials' })).toBe(1);

  // Jobs: started by the API, ended by the worker.
  expect(grew(apiBefore, apiAfter, 'cp_jobs_started_total')).toBe(1);
  expect(grew(apiBefore, apiAfter, 'cp_jobs_started_total', { kind: 'campaign_generation' })).toBe(1);
  expect(grew(workerBefore, workerAfter, 'cp_jobs_finished_total', { outcome: 'succeeded' })).toBe(1);
  expect(grew(workerBefore, workerAfter, 'cp_job_duration_seconds_count', { kind: 'campaign_generation' })).toBe(1);

  // Credits: the API reserved, the worker captured and released; the ledger says how many of each.
  const job = await acrossWorkspaces(platform.container.orm.em.fork()).findOneOrFail(Job, {
    workspace: tenant.workspaceId,
    kind: 'campaign_generation',
  });
  expect(job.status).toBe('succeeded');
  const entries = await acrossWorkspaces(platform.container.orm.em.fork()).find(CreditLedgerEntry, {
    reference: job.id,
  });
  const ledger = (kind: string) => entries.filter((e) => e.kind === kind);
  expect(ledger('reserve')).toHaveLength(1);
  expect(grew(apiBefore, apiAfter, 'cp_credit_postings_total', { kind: 'reserve' })).toBe(1);
  expect(grew(apiBefore, apiAfter, 'cp_credits_posted_total', { kind: 'reserve' })).toBe(ledger('reserve')[0]!.amount);
  expect(ledger('capture').length).toBeGreaterThan(0);
  expect(grew(workerBefore, workerAfter, 'cp_credit_postings_total', { kind: 'capture' })).toBe(
    ledger('capture').length,
  );
  expect(grew(workerBefore, workerAfter, 'cp_credit_postings_total', { kind: 'release' })).toBe(
    ledger('release').length,
  );
  expect(grew(workerBefore, workerAfter, 'cp_credits_posted_total', { kind: 'capture' })).toBe(
    ledger('capture').reduce((sum, e) => sum + e.amount, 0),
  );

  expect(grew(apiBefore, apiAfter, 'cp_analytics_events_accepted_total', { source: 'server_conversion' })).toBe(2);
  expect(grew(apiBefore, apiAfter, 'cp_analytics_events_rejected_total', { source: 'server_conversion' })).toBe(1);

  // HTTP: the refused raw calls by status, under the route pattern; and as many requests as log lines.
  const mcp = { host: 'platform', route: '/api/mcp', method: 'POST' };
  expect(grew(apiBefore, apiAfter, 'cp_http_requests_total', { ...mcp, status: '429' })).toBe(3);
  expect(grew(apiBefore, apiAfter, 'cp_http_requests_total', { ...mcp, status: '401' })).toBe(3);
  expect(
    grew(apiBefore, apiAfter, 'cp_http_requests_total', {
      host: 'auth',
      route: '/.well-known/oauth-authorization-server',
      status: '200',
    }),
  ).toBe(1);
  const httpCounted = grew(apiBefore, apiAfter, 'cp_http_requests_total');
  // Each scrape is counted after its body was read and logged before its answer left: the first scrape's
  // count and the last scrape's line fall inside the session, the first's line and the last's count outside.
  expect(accessLines().length - linesBefore).toBe(httpCounted);
  expect(grew(apiBefore, apiAfter, 'cp_http_request_duration_seconds_count')).toBe(httpCounted);

  // Every family is exposed, with the Node runtime's and the pool's.
  for (const family of [
    'cp_http_requests_total',
    'cp_http_request_duration_seconds',
    'cp_mcp_tool_calls_total',
    'cp_mcp_tool_call_duration_seconds',
    'cp_rate_limited_total',
    'cp_auth_failures_total',
    'cp_jobs_started_total',
    'cp_jobs_finished_total',
    'cp_job_duration_seconds',
    'cp_credit_postings_total',
    'cp_credits_posted_total',
    'cp_analytics_events_accepted_total',
    'cp_analytics_events_rejected_total',
    'cp_analytics_rollup_lag_seconds',
    'cp_channel_posts_total',
    'cp_db_pool_connections',
    'process_cpu_user_seconds_total',
    'nodejs_eventloop_lag_seconds',
  ]) {
    expect(apiAfter).toContain(`# TYPE ${family} `);
  }
  for (const family of ['cp_jobs_finished_total', 'cp_channel_posts_total', 'cp_db_pool_idle_connections']) {
    expect(workerAfter).toContain(`# TYPE ${family} `);
  }
  expect(workerAfter).not.toContain('cp_analytics_rollup_lag_seconds'); // read by the API only
  const lag = total(apiAfter, 'cp_analytics_rollup_lag_seconds');
  expect(lag).toBeGreaterThanOrEqual(0);
  expect(lag).toBeLessThan(600);
  const pool = total(apiAfter, 'cp_db_pool_connections');
  expect(pool).toBeGreaterThan(0);
  expect(pool).toBeLessThanOrEqual(total(apiAfter, 'cp_db_pool_max_connections'));

  // No label value anywhere is a workspace id, a URL or a host name; no workspace id appears at all.
  for (const text of [apiAfter, workerAfter]) {
    expect(text).not.toContain(tenant.workspaceId);
    for (const sample of samples(text)) {
      for (const value of Object.values(sample.labels)) {
        expect(value).not.toMatch(/^ws_|:\/\/|localhost|\?/);
      }
    }
  }

  // The access log: one line per request, with its fields and nothing secret.
  const lines = accessLines().slice(linesBefore);
  const byId = (id: string) => lines.filter((line) => line.requestId === id);
  expect(byId('unknown-1')).toEqual([
    expect.objectContaining({
      level: 30,
      requestId: 'unknown-1',
      host: 'platform',
      route: '/api/mcp',
      method: 'POST',
      status: 401,
      principal: 'anonymous',
      durationMs: expect.any(Number),
    }),
  ]);
  expect(byId(`limit-${RATE_LIMIT + 2}`)).toEqual([expect.objectContaining({ status: 429, principal: 'api_key' })]);
  expect(byId('limit-0')).toEqual([expect.objectContaining({ status: 200, principal: 'api_key' })]);
  expect(byId('conversions-1')).toEqual([
    expect.objectContaining({ route: '/api/v1/conversions', status: 202, principal: 'api_key' }),
  ]);
  for (const line of lines) {
    expect(Object.keys(line).sort()).toEqual(
      [
        'durationMs',
        'host',
        'level',
        'method',
        'msg',
        'name',
        'principal',
        'requestId',
        'route',
        'service',
        'status',
        'time',
      ].sort(),
    );
  }
  const written = lines.map((line) => JSON.stringify(line)).join('\n');
  for (const secret of [tenant.apiKey, limited, unknownKey, METRICS_TOKEN, tenant.email, tenant.workspaceId]) {
    expect(written).not.toContain(secret);
  }
  expect(written).not.toMatch(/cpk_|Bearer|\?/);

  // The Temporal SDK's runtime metrics, on their own port, for this worker's task queue.
  const sdk = await scrape(`http://127.0.0.1:${platform.config.metrics.workerSdkPort}/metrics`);
  expect(sdk).toMatch(/^temporal_\w+/m);
  expect(
    total(sdk, 'temporal_workflow_completed_total', { task_queue: platform.config.temporal.taskQueue }),
  ).toBeGreaterThan(0);
}, 90_000);

it('serves /metrics only where configured: the platform host and the listener ask for the token', async () => {
  const platformMetrics = `${platform.urls.platform}/metrics`;
  expect((await testFetch(platformMetrics)).status).toBe(404);
  expect((await testFetch(platformMetrics, { headers: { authorization: 'Bearer wrong-token' } })).status).toBe(404);
  // Not on any other site.
  expect(
    (await testFetch(`${platform.urls.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }))
      .status,
  ).toBe(404);

  const own = `http://127.0.0.1:${listener.port}/metrics`;
  expect((await testFetch(own)).status).toBe(401);
  expect(await scrape(own, METRICS_TOKEN)).toContain('# TYPE cp_http_requests_total counter');
  expect((await testFetch(`http://127.0.0.1:${listener.port}/other`)).status).toBe(404);
});
