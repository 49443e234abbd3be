/**
 * Traces (docs/tracing.md): one `generate_campaign start` through a real MCP client on the real HTTP server,
 * with a real worker on Temporal, recorded by an in-memory exporter in this process (the test platform runs
 * the API and the worker here). The HTTP server span, the tool call, its PostgreSQL queries, the job's
 * launch, the workflow start, the workflow run and its activities (with their own queries) are one trace,
 * each span the child of the one before.
 */
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { connectV2, type ToolCallResult } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';
import { workspaceScope, actors } from '../../src/domain/shared/scope.ts';
import { createLogger } from '../../src/logger.ts';
import { SERVICE_NAMES, startTracing, type Tracing } from '../../src/tracing/sdk.ts';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let platform: TestPlatform;
let tenant: Tenant;
let productId: string;
const INTENT = 'Sell our mugs to coffee lovers';

beforeAll(async () => {
  // Before the platform: its Temporal client and worker take the tracing interceptors when they are built.
  tracing = startTracing(
    { env: 'test', tracing: { tracesUrl: null, headers: {}, sampleRatio: 1 } },
    'api',
    createLogger({ level: 'silent', name: 'test' }),
    { exporter },
  )!;
  platform = await startTestPlatform({ worker: true, label: 'tracing' });
  tenant = await createTenant(platform.container, { credits: 100 });
  const product = await platform.container.services.products.create(
    workspaceScope(platform.container.orm.em, tenant.workspaceId, actors.operator),
    { title: 'Stoneware mug', description: 'Hand-glazed, holds 350 ml.', price: 24, currency: 'EUR' },
  );
  productId = product.id;
});

afterAll(async () => {
  await platform.close();
  await tracing.shutdown();
  await closeTestFetch();
});

function ok(result: ToolCallResult): Record<string, any> {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.structuredContent ?? result.content)}`);
  return result.structuredContent!;
}

it('links the HTTP request, the tool call, PostgreSQL, the workflow and its activities in one trace', async () => {
  const client = await connectV2(platform.urls.mcp, { 'x-api-key': tenant.apiKey });
  let campaignId: string;
  try {
    const start = { mode: 'start', intent: INTENT, productIds: [productId], variantCount: 1, includeImages: false };
    const quoted = ok(await client.callTool('generate_campaign', start));
    const started = ok(await client.callTool('generate_campaign', { ...start, quoteId: quoted.quote.id }));
    expect(started.status).toBe('started');
    campaignId = started.campaignId as string;
  } finally {
    await client.close();
  }

  // The workflow's own spans reach the exporter through the worker's sink when the run completes.
  const spans = await pollUntil(
    () => exporter.getFinishedSpans(),
    (all) => all.some((span) => span.name === 'RunWorkflow:campaignGenerationWorkflow'),
    { timeoutMs: 60_000, intervalMs: 100, timeoutMessage: 'the generation workflow did not finish' },
  );
  expect(campaignId).toBeTruthy();

  const launch = spans.find((span) => span.name === 'job.launch campaign_generation');
  expect(launch).toBeDefined();
  const traceId = launch!.spanContext().traceId;
  const trace = spans.filter((span) => span.spanContext().traceId === traceId);
  const byId = new Map(trace.map((span) => [span.spanContext().spanId, span]));
  const parentOf = (span: ReadableSpan) => (span.parentSpanId ? byId.get(span.parentSpanId) : undefined);
  const one = (name: string, parent: ReadableSpan | undefined) => {
    const found = trace.filter((span) => span.name === name && parentOf(span) === parent);
    expect({ name, count: found.length }).toEqual({ name, count: 1 });
    return found[0]!;
  };

  // API: request → tool call → job launch → workflow start.
  const request = one('POST /api/mcp', undefined);
  expect(request.kind).toBe(SpanKind.SERVER);
  expect(request.attributes).toMatchObject({
    'http.request.method': 'POST',
    'http.route': '/api/mcp',
    'http.response.status_code': 200,
    'campaign.principal': 'api_key',
  });
  const toolCall = one('tools/call generate_campaign', request);
  expect(toolCall.attributes).toMatchObject({ 'gen_ai.tool.name': 'generate_campaign', 'mcp.tool.action': 'start' });
  expect(parentOf(launch!)).toBe(toolCall);
  const toolQueries = trace.filter(
    (span) => span.attributes['db.system.name'] === 'postgresql' && parentOf(span) === toolCall,
  );
  expect(toolQueries.length).toBeGreaterThan(0);
  expect(toolQueries.every((span) => span.kind === SpanKind.CLIENT)).toBe(true);
  const startWorkflow = one('StartWorkflow:campaignGenerationWorkflow', launch);

  // Worker: the run under the start, each activity scheduled by the run and executed under its scheduling.
  const run = one('RunWorkflow:campaignGenerationWorkflow', startWorkflow);
  const scheduled = trace.filter((span) => span.name.startsWith('StartActivity:') && parentOf(span) === run);
  expect(scheduled.length).toBeGreaterThan(0);
  for (const schedule of scheduled) {
    one(schedule.name.replace('StartActivity:', 'RunActivity:'), schedule);
  }
  const activityQueries = trace.filter(
    (span) => span.attributes['db.system.name'] === 'postgresql' && parentOf(span)?.name.startsWith('RunActivity:'),
  );
  expect(activityQueries.length).toBeGreaterThan(0);
  expect(run.resource.attributes['service.name']).toBe(SERVICE_NAMES.api);

  // Attributes OTLP can carry (no nested objects: the workflow sink's copy of WorkflowInfo is trimmed to ids).
  for (const span of trace) {
    for (const [key, value] of Object.entries(span.attributes)) {
      expect({ span: span.name, key, type: typeof value }).toEqual({
        span: span.name,
        key,
        type: expect.stringMatching(/^(string|number|boolean)$/),
      });
    }
  }
  // Names and kinds only: no credential, no user text, no SQL.
  const recorded = JSON.stringify(trace.map((span) => [span.name, span.attributes]));
  expect(recorded).not.toContain(tenant.apiKey);
  expect(recorded).not.toContain(INTENT);
  expect(recorded).not.toContain(tenant.email);
  expect(recorded.toLowerCase()).not.toMatch(/select [^"]*from|insert into/);
});
