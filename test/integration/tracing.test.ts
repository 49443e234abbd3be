/**
 * Traces (docs/tracing.md): one `generate_campaign start` through a real MCP client on the real HTTP server,
 * with the real worker in its own process. The API's spans are recorded by an in-memory exporter in this
 * process; the worker exports its own over OTLP/HTTP JSON, as configured by OTEL_* variables, to a loopback
 * receiver in this test. Together: the HTTP server span, the tool call, its PostgreSQL queries, the job's
 * launch, the workflow start, the workflow run and its activities (with their queries) are one trace, each
 * span the child of the one before, with the API's and the worker's service names.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, type AttributeValue } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { spawnLogged, type LoggedProcess } from '../support/logged-process.ts';
import { connectV2, type ToolCallResult } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';
import { workerEnv } from '../support/worker-process.ts';
import { workspaceScope, actors } from '../../src/domain/shared/scope.ts';
import { createLogger } from '../../src/logger.ts';
import { SERVICE_NAMES, startTracing, type Tracing } from '../../src/tracing/sdk.ts';

/** A span from either side, in one shape. */
interface Recorded {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: SpanKind;
  attributes: Record<string, AttributeValue | undefined>;
}

/** One OTLP/JSON attribute: exactly one of these value fields (a kvlist or array would be a nested object). */
type OtlpValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
}
interface OtlpExport {
  resourceSpans: {
    resource: { attributes: { key: string; value: OtlpValue }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

const COLLECTOR_KEY = 'collector key 7f3a';
const INTENT = 'Sell our mugs to coffee lovers';
const exporter = new InMemorySpanExporter();
const received: { headers: http.IncomingHttpHeaders; path: string; body: OtlpExport }[] = [];
let receiver: http.Server;
let tracing: Tracing;
let platform: TestPlatform;
let worker: LoggedProcess;
let tenant: Tenant;
let productId: string;

/** A tiny OTLP/HTTP receiver: JSON bodies only, as the platform's exporter sends them. */
async function startReceiver(): Promise<string> {
  receiver = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ headers: request.headers, path: request.url ?? '', body: JSON.parse(body) as OtlpExport });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}

function valueOf(value: OtlpValue): AttributeValue | undefined {
  const fields = Object.keys(value);
  // Anything but one scalar field is not an attribute a backend shows as such.
  if (fields.length !== 1 || !['stringValue', 'intValue', 'boolValue', 'doubleValue'].includes(fields[0]!)) {
    return `(not a scalar: ${fields.join(',')})`;
  }
  return value.intValue !== undefined
    ? Number(value.intValue)
    : (value.stringValue ?? value.boolValue ?? value.doubleValue);
}

function workerSpans(): Recorded[] {
  return received.flatMap(({ body }) =>
    body.resourceSpans.flatMap((resourceSpan) => {
      const service = resourceSpan.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
      return resourceSpan.scopeSpans.flatMap(({ spans }) =>
        spans.map((span) => ({
          service,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          name: span.name,
          kind: (span.kind - 1) as SpanKind, // OTLP numbers kinds from 1 (INTERNAL), the API from 0
          attributes: Object.fromEntries((span.attributes ?? []).map(({ key, value }) => [key, valueOf(value)])),
        })),
      );
    }),
  );
}

function apiSpans(): Recorded[] {
  return exporter.getFinishedSpans().map((span) => ({
    service: String(span.resource.attributes['service.name']),
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    kind: span.kind,
    attributes: span.attributes,
  }));
}

beforeAll(async () => {
  const receiverUrl = await startReceiver();
  // Before the platform: its Temporal client takes the tracing interceptors when it is built.
  tracing = startTracing(
    { env: 'test', tracing: { tracesUrl: null, headers: {}, sampleRatio: 1 } },
    'api',
    createLogger({ level: 'silent', name: 'test' }),
    { exporter },
  )!;
  platform = await startTestPlatform({ label: 'tracing' });
  worker = spawnLogged(
    'src/worker.ts',
    {
      ...workerEnv(platform.config),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
      OTEL_EXPORTER_OTLP_HEADERS: `x-collector-key=${encodeURIComponent(COLLECTOR_KEY)}`,
    },
    '"worker running"',
    'worker',
  );
  tenant = await createTenant(platform.container, { credits: 100 });
  const product = await platform.container.services.products.create(
    workspaceScope(platform.container.orm.em, tenant.workspaceId, actors.operator),
    { title: 'Stoneware mug', description: 'Hand-glazed, holds 350 ml.', price: 24, currency: 'EUR' },
  );
  productId = product.id;
  await worker.ready;
});

afterAll(async () => {
  await worker?.kill('SIGTERM');
  await platform.close();
  await tracing.shutdown();
  await new Promise((resolve) => receiver.close(resolve));
  await closeTestFetch();
});

function ok(result: ToolCallResult): Record<string, any> {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.structuredContent ?? result.content)}`);
  return result.structuredContent!;
}

it('links the HTTP request, the tool call, PostgreSQL, the workflow and its activities in one trace', async () => {
  const client = await connectV2(platform.urls.mcp, { 'x-api-key': tenant.apiKey });
  try {
    const start = { mode: 'start', intent: INTENT, productIds: [productId], variantCount: 1, includeImages: false };
    const quoted = ok(await client.callTool('generate_campaign', start));
    const started = ok(await client.callTool('generate_campaign', { ...start, quoteId: quoted.quote.id }));
    expect(started.status).toBe('started');
  } finally {
    await client.close();
  }

  // The worker's batches reach the receiver within its export delay; the run's own span ends last.
  await pollUntil(
    () => workerSpans(),
    (spans) => spans.some((span) => span.name === 'RunWorkflow:campaignGenerationWorkflow'),
    { timeoutMs: 60_000, intervalMs: 100, timeoutMessage: 'the worker exported no run of the generation workflow' },
  );
  expect(received.every(({ path }) => path === '/v1/traces')).toBe(true);
  expect(received.every(({ headers }) => headers['x-collector-key'] === COLLECTOR_KEY)).toBe(true);
  expect(received.every(({ headers }) => headers['content-type'] === 'application/json')).toBe(true);

  const spans = [...apiSpans(), ...workerSpans()];
  const launch = spans.find((span) => span.name === 'job.launch campaign_generation');
  expect(launch).toBeDefined();
  const trace = spans.filter((span) => span.traceId === launch!.traceId);
  const byId = new Map(trace.map((span) => [span.spanId, span]));
  const parentOf = (span: Recorded) => (span.parentSpanId ? byId.get(span.parentSpanId) : undefined);
  const one = (name: string, parent: Recorded | undefined, service: string) => {
    const found = trace.filter((span) => span.name === name && parentOf(span) === parent);
    expect({ name, count: found.length, service: found[0]?.service }).toEqual({ name, count: 1, service });
    return found[0]!;
  };
  const queriesUnder = (parent: Recorded) =>
    trace.filter((span) => span.attributes['db.system.name'] === 'postgresql' && parentOf(span) === parent);

  // API: request → tool call (→ its queries) → job launch → workflow start.
  const request = one('POST /api/mcp', undefined, SERVICE_NAMES.api);
  expect(request.kind).toBe(SpanKind.SERVER);
  expect(request.attributes).toMatchObject({
    'http.request.method': 'POST',
    'http.route': '/api/mcp',
    'http.response.status_code': 200,
    'campaign.principal': 'api_key',
  });
  const toolCall = one('tools/call generate_campaign', request, SERVICE_NAMES.api);
  expect(toolCall.attributes).toMatchObject({ 'gen_ai.tool.name': 'generate_campaign', 'mcp.tool.action': 'start' });
  expect(queriesUnder(toolCall).length).toBeGreaterThan(0);
  expect(queriesUnder(toolCall).every((span) => span.kind === SpanKind.CLIENT)).toBe(true);
  expect(parentOf(launch!)).toBe(toolCall);
  const startWorkflow = one('StartWorkflow:campaignGenerationWorkflow', launch, SERVICE_NAMES.api);

  // Worker: the run under the start, each activity scheduled by the run and executed under its scheduling.
  const run = one('RunWorkflow:campaignGenerationWorkflow', startWorkflow, SERVICE_NAMES.worker);
  const scheduled = trace.filter((span) => span.name.startsWith('StartActivity:') && parentOf(span) === run);
  expect(scheduled.length).toBeGreaterThan(0);
  const executed = scheduled.map((schedule) =>
    one(schedule.name.replace('StartActivity:', 'RunActivity:'), schedule, SERVICE_NAMES.worker),
  );
  expect(executed.some((activity) => queriesUnder(activity).length > 0)).toBe(true);

  // Scalar attributes only (the workflow sink's copy of WorkflowInfo is trimmed to ids), and names and kinds
  // only: no credential, no user text, no SQL.
  for (const span of trace) {
    for (const [key, value] of Object.entries(span.attributes)) {
      expect({ span: span.name, key, type: typeof value }).toEqual({
        span: span.name,
        key,
        type: expect.stringMatching(/^(string|number|boolean)$/),
      });
    }
  }
  const recorded = JSON.stringify(trace.map((span) => [span.name, span.attributes]));
  expect(recorded).not.toContain(tenant.apiKey);
  expect(recorded).not.toContain(INTENT);
  expect(recorded).not.toContain(tenant.email);
  expect(recorded.toLowerCase()).not.toMatch(/select [^"]*from|insert into/);
  // The worker announced tracing without its exporter's secret header.
  expect(worker.output()).toContain('"tracing on"');
  expect(worker.output()).not.toContain(COLLECTOR_KEY);
});
