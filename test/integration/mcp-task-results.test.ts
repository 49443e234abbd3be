/**
 * What a task resolves to matches the output schema its tool advertises, for every kind of long job, in both
 * task eras, with a real worker running each job to its end:
 *
 * - 2025-11-25 through the v1 SDK's task client (`client.experimental.tasks.callToolStream`: task creation,
 *   `tasks/get` polling, `tasks/result`), which itself refuses a result whose `structuredContent` does not
 *   match the tool's output schema;
 * - 2026-07-28 through the tasks extension: the creating `tools/call` over plain HTTP (the v2 client refuses
 *   `resultType: "task"`), then `tasks/get` and `tasks/update` through the v2 client.
 *
 * Each result's `structuredContent` is also validated here with ajv (JSON Schema 2020-12) against the
 * `outputSchema` the same client was listed. Jobs: a generation, a still render of the generated variant, a
 * film approved through both of its gates, and a CSV product import served from a loopback HTTP server.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { modernRpc } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workspaceScope, actors } from '../../src/domain/shared/scope.ts';
import { pollUntil } from '../support/poll.ts';

let platform: TestPlatform;
let tenant: Tenant;
let productId: string;
let csvServer: http.Server;
let csvServer6: http.Server;
let csvPort: number;

const CSV = 'Title,Description,Price,Currency\nLinen apron,Stonewashed,29.00,EUR\nCanvas tote,Heavy cotton,18.50,EUR\n';

beforeAll(async () => {
  csvServer = http.createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/feed.csv') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/csv' }).end(CSV);
  });
  await new Promise<void>((resolve) => csvServer.listen(0, '127.0.0.1', () => resolve()));
  csvPort = (csvServer.address() as AddressInfo).port;
  // Where `localhost` resolves to ::1 first, serve the same file there too (best effort, as the import tests do).
  csvServer6 = http.createServer(csvServer.listeners('request')[0] as http.RequestListener);
  await new Promise<void>((resolve) => {
    csvServer6.once('error', () => resolve());
    csvServer6.listen(csvPort, '::1', () => resolve());
  });
  platform = await startTestPlatform({
    worker: true,
    label: 'taskresults',
    // The CSV is served from loopback, which the SSRF guard allows for named hosts only.
    env: { RATE_LIMIT_PER_MINUTE: '100000', SSRF_ALLOW_PRIVATE_HOSTS: 'localhost' },
  });
  tenant = await createTenant(platform.container, { credits: 5000 });
  const product = await platform.container.services.products.create(
    workspaceScope(platform.container.orm.em, tenant.workspaceId, actors.operator),
    { title: 'Stoneware mug', description: 'Hand-glazed, holds 350 ml.', price: 24, currency: 'EUR' },
  );
  productId = product.id;
});

afterAll(async () => {
  await platform?.close();
  for (const server of [csvServer, csvServer6]) {
    if (!server?.listening) continue;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await closeTestFetch();
});

const ajv = new Ajv2020({ allErrors: true, strict: false });

/** Validates `structured` against the tool's advertised output schema; answers the errors (none expected). */
function schemaErrors(tools: { name: string; outputSchema?: unknown }[], tool: string, structured: unknown) {
  const schema = tools.find((t) => t.name === tool)?.outputSchema;
  if (!schema) throw new Error(`${tool} advertises no output schema`);
  const validate = ajv.compile(schema as object);
  return validate(structured) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

const csvUrl = () => `http://localhost:${csvPort}/feed.csv`;
const generationArgs = (intent: string) => ({
  mode: 'start',
  intent,
  productIds: [productId],
  variantCount: 1,
  includeImages: false,
});
const filmArgs = (title: string) => ({
  action: 'create',
  title,
  brief: 'A mug of coffee steaming on a windowsill at dawn.',
  aspect: '1:1',
  durationSeconds: 6,
});

interface Outcome {
  tool: string;
  structured: Record<string, unknown>;
  isError: boolean;
}

describe('2025-11-25: the v1 SDK task client', () => {
  let client: ClientV1;
  let tools: { name: string; outputSchema?: unknown }[];

  beforeAll(async () => {
    client = new ClientV1({ name: 'task-results-v1', version: '1.0.0' });
    await client.connect(
      new TransportV1(new URL(platform.urls.mcp), {
        fetch: testFetch,
        requestInit: { headers: { 'x-api-key': tenant.apiKey } },
      }),
    );
    // Also what lets the client know which tools take tasks and what their output schemas are.
    tools = (await client.listTools()).tools;
  });

  afterAll(async () => {
    await client?.close();
  });

  const structuredOf = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })).structuredContent as Record<string, unknown>;

  /** Runs a call as a task to its end through the SDK (which validates the final result itself). */
  async function runAsTask(name: string, args: Record<string, unknown>, whileWaiting?: () => Promise<void>) {
    let taskId: string | undefined;
    let final: Outcome | undefined;
    let failure: Error | undefined;
    const stream = client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
      timeout: 240_000,
    });
    const running = (async () => {
      for await (const message of stream) {
        if (message.type === 'taskCreated') taskId = message.task.taskId;
        else if (message.type === 'result') {
          final = {
            tool: name,
            structured: message.result.structuredContent as Record<string, unknown>,
            isError: message.result.isError === true,
          };
        } else if (message.type === 'error') failure = message.error;
      }
    })();
    if (whileWaiting) await whileWaiting();
    await running;
    if (failure) throw failure;
    expect(taskId).toMatch(/^tsk_/);
    expect(final?.isError).toBe(false);
    return final!;
  }

  it('generation, render, film (approved at both gates) and CSV import: every task result matches its schema', async () => {
    const outcomes: Outcome[] = [];

    const generationQuote = await structuredOf('generate_campaign', generationArgs('Mugs for early risers'));
    const generation = await runAsTask('generate_campaign', {
      ...generationArgs('Mugs for early risers'),
      quoteId: (generationQuote.quote as { id: string }).id,
    });
    outcomes.push(generation);
    const generated = generation.structured.generation as { status: string; campaignId: string; variantIds: string[] };
    expect(generated.status).toBe('complete');

    const stillArgs = { mode: 'still', campaignId: generated.campaignId, variantId: generated.variantIds[0] };
    const renderQuote = await structuredOf('render_video', stillArgs);
    const render = await runAsTask('render_video', {
      ...stillArgs,
      quoteId: (renderQuote.quote as { id: string }).id,
    });
    outcomes.push(render);
    expect(render.structured.render).toMatchObject({ status: 'complete', output: { mimeType: 'image/png' } });

    // The film waits for approval twice; tasks/result holds until the end, so the approvals come from the
    // ordinary tool, as an agent following query_video_commissions would send them.
    const filmQuote = await structuredOf('video_commission', filmArgs('Dawn mug'));
    let commissionId: string | undefined;
    let approvals = 0;
    const film = await runAsTask(
      'video_commission',
      { ...filmArgs('Dawn mug'), quoteId: (filmQuote.quote as { id: string }).id },
      async () => {
        // Each read finds the commission, or approves the gate it waits at, if any.
        await pollUntil(
          async () => {
            if (!commissionId) {
              const listed = await structuredOf('query_video_commissions', { action: 'list' });
              commissionId = (listed.commissions as { id: string; title: string }[] | undefined)?.find(
                (c) => c.title === 'Dawn mug',
              )?.id;
            } else {
              const got = await structuredOf('query_video_commissions', { action: 'get', commissionId });
              if ((got.commission as { waitingFor: string | null }).waitingFor) {
                await structuredOf('video_commission', { action: 'approve', commissionId });
                approvals += 1;
              }
            }
            return approvals;
          },
          (approved) => approved >= 2,
          {
            timeoutMs: 180_000,
            intervalMs: 300,
            timeoutMessage: (approved) =>
              `the film was approved ${approved} time(s) of 2 (${commissionId ?? 'not listed'})`,
          },
        );
      },
    );
    outcomes.push(film);
    expect(approvals).toBe(2);
    expect(film.structured.commission).toMatchObject({ id: commissionId, status: 'completed' });

    const csvImport = await runAsTask('manage_products', { action: 'import_from_url', sourceUrl: csvUrl() });
    outcomes.push(csvImport);
    expect(csvImport.structured.importJob).toMatchObject({ status: 'succeeded', result: { created: 2 } });

    for (const outcome of outcomes) {
      expect({ tool: outcome.tool, errors: schemaErrors(tools, outcome.tool, outcome.structured) }).toEqual({
        tool: outcome.tool,
        errors: [],
      });
      expect(outcome.structured.workspace).toEqual({ id: tenant.workspaceId, name: expect.any(String) });
    }
  }, 480_000);
});

describe('2026-07-28: the tasks extension', () => {
  let client: ClientV2;
  let tools: { name: string; outputSchema?: unknown }[];
  const DetailedTask = z.looseObject({
    taskId: z.string(),
    status: z.string(),
    result: z
      .looseObject({ structuredContent: z.record(z.string(), z.unknown()).optional(), isError: z.boolean().optional() })
      .optional(),
    inputRequests: z.record(z.string(), z.unknown()).optional(),
  });

  beforeAll(async () => {
    client = new ClientV2(
      { name: 'task-results-v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new TransportV2(new URL(platform.urls.mcp), {
        fetch: testFetch,
        requestInit: { headers: { 'x-api-key': tenant.apiKey } },
      }),
    );
    tools = (await client.listTools()).tools;
  });

  afterAll(async () => {
    await client?.close();
  });

  const structuredOf = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })).structuredContent as Record<string, unknown>;

  /** Creates the task (plain HTTP), then follows it with tasks/get, answering approvals with tasks/update. */
  async function runAsTask(name: string, args: Record<string, unknown>): Promise<Outcome & { approvals: number }> {
    const created = await modernRpc(platform.urls.mcp, tenant.apiKey, 'tools/call', name, { name, arguments: args });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.result!.taskId as string;
    let approvals = 0;
    // Each read answers the approval the task asks for, if any.
    const task = await pollUntil(
      async () => {
        const current = await client.request({ method: 'tasks/get', params: { taskId } }, DetailedTask);
        if (current.status === 'failed' || current.status === 'cancelled') throw new Error(`task ${current.status}`);
        if (current.status === 'input_required' && current.inputRequests?.approval) {
          await client.request(
            {
              method: 'tasks/update',
              params: { taskId, inputResponses: { approval: { action: 'accept', content: { decision: 'approve' } } } },
            },
            z.looseObject({}),
          );
          approvals += 1;
        }
        return current;
      },
      (current) => current.status === 'completed',
      {
        timeoutMs: 240_000,
        intervalMs: 300,
        timeoutMessage: (current) => `task ${taskId} did not end in time (${current.status})`,
      },
    );
    return {
      tool: name,
      structured: task.result!.structuredContent as Record<string, unknown>,
      isError: task.result!.isError === true,
      approvals,
    };
  }

  it('generation, render, film (approved with tasks/update) and CSV import: every inlined result matches its schema', async () => {
    const outcomes: Outcome[] = [];

    const generationQuote = await structuredOf('generate_campaign', generationArgs('Mugs for night owls'));
    const generation = await runAsTask('generate_campaign', {
      ...generationArgs('Mugs for night owls'),
      quoteId: (generationQuote.quote as { id: string }).id,
    });
    outcomes.push(generation);
    const generated = generation.structured.generation as { status: string; campaignId: string; variantIds: string[] };
    expect(generated.status).toBe('complete');

    const stillArgs = { mode: 'still', campaignId: generated.campaignId, variantId: generated.variantIds[0] };
    const renderQuote = await structuredOf('render_video', stillArgs);
    const render = await runAsTask('render_video', { ...stillArgs, quoteId: (renderQuote.quote as { id: string }).id });
    outcomes.push(render);
    expect(render.structured.render).toMatchObject({ status: 'complete', output: { mimeType: 'image/png' } });

    const filmQuote = await structuredOf('video_commission', filmArgs('Dusk mug'));
    const film = await runAsTask('video_commission', {
      ...filmArgs('Dusk mug'),
      quoteId: (filmQuote.quote as { id: string }).id,
    });
    outcomes.push(film);
    expect(film.approvals).toBe(2);
    expect(film.structured.commission).toMatchObject({ status: 'completed' });

    const csvImport = await runAsTask('manage_products', { action: 'import_from_url', sourceUrl: csvUrl() });
    outcomes.push(csvImport);
    expect(csvImport.structured.importJob).toMatchObject({ status: 'succeeded', result: { created: 2 } });

    for (const outcome of outcomes) {
      expect(outcome.isError).toBe(false);
      expect({ tool: outcome.tool, errors: schemaErrors(tools, outcome.tool, outcome.structured) }).toEqual({
        tool: outcome.tool,
        errors: [],
      });
    }
  }, 480_000);
});
