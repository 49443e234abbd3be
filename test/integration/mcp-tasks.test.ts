/**
 * MCP task handles over real MCP clients on HTTP, with a real worker: the 2025-11-25 task model through the
 * v1 SDK client's task API (tasks/get, tasks/result, tasks/list, tasks/cancel) and the 2026-07-28 tasks
 * extension through the v2 client (per-request capability, resultType "task", detailed tasks/get).
 * A task id of another workspace is unknown; a call that negotiated nothing returns the job at once.
 */
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { modernRpc as rawModernRpc } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { acrossWorkspaces, workspaceScope, withEntityManager, actors } from '../../src/domain/shared/scope.ts';
import { pollUntil } from '../support/poll.ts';

let platform: TestPlatform;
let tenant: Tenant;
let other: Tenant;
let productId: string;

async function legacyClient(apiKey: string) {
  const client = new ClientV1({ name: 'tasks-v1', version: '1.0.0' });
  await client.connect(
    new TransportV1(new URL(platform.urls.mcp), {
      fetch: testFetch,
      requestInit: { headers: { 'x-api-key': apiKey } },
    }),
  );
  return client;
}

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true, label: 'mcptasks', env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  tenant = await createTenant(platform.container, { credits: 1000 });
  other = await createTenant(platform.container, { credits: 100 });
  const product = await platform.container.services.products.create(
    workspaceScope(platform.container.orm.em, tenant.workspaceId, actors.operator),
    { title: 'Stoneware mug', description: 'Hand-glazed, holds 350 ml.', price: 24, currency: 'EUR' },
  );
  productId = product.id;
});

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

const startArgs = () => ({
  mode: 'start',
  intent: 'Sell our mugs to coffee lovers',
  productIds: [productId],
  variantCount: 1,
  includeImages: false,
});

it('2025-11-25: tools/call with task → CreateTaskResult; tasks/get, tasks/result, tasks/list; other workspaces see nothing', async () => {
  const client = await legacyClient(tenant.apiKey);
  try {
    const tools = await client.listTools();
    expect(tools.tools.find((t) => t.name === 'generate_campaign')?.execution).toEqual({ taskSupport: 'optional' });
    expect(tools.tools.find((t) => t.name === 'query_campaigns')?.execution).toBeUndefined();

    const quoted = await client.callTool({ name: 'generate_campaign', arguments: startArgs() });
    const quoteId = (quoted.structuredContent as { quote: { id: string } }).quote.id;
    const created = await client.request(
      {
        method: 'tools/call',
        params: { name: 'generate_campaign', arguments: { ...startArgs(), quoteId }, task: { ttl: 60_000 } },
      },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    expect(taskId).toMatch(/^tsk_[A-Za-z0-9_-]{32}$/);
    expect(created.task.status).toBe('working');
    expect(created.task.pollInterval).toBe(2000);

    const task = await pollUntil(
      () => client.experimental.tasks.getTask(taskId),
      (current) => current.status !== 'working',
      { timeoutMs: 30_000, intervalMs: 100, timeoutMessage: `task ${taskId} still working` },
    );
    expect(task.status).toBe('completed');
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result).toMatchObject({
      // The tool's own result shape (the one its output schema describes), for the job now complete.
      structuredContent: {
        mode: 'start',
        status: 'started',
        generation: { status: 'complete', taskId },
        workspace: { id: tenant.workspaceId },
      },
      _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
    });
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toContain(taskId);
    await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/already completed/);

    const stranger = await legacyClient(other.apiKey);
    try {
      await expect(stranger.experimental.tasks.getTask(taskId)).rejects.toThrow(/Unknown task/);
      await expect(stranger.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/Unknown task/);
      expect((await stranger.experimental.tasks.listTasks()).tasks).toEqual([]);
    } finally {
      await stranger.close();
    }
  } finally {
    await client.close();
  }
});

it('2025-11-25: tasks/cancel cancels the workflow; the task reads cancelled and the credits come back', async () => {
  const client = await legacyClient(tenant.apiKey);
  try {
    const args = { ...startArgs(), intent: 'Mugs for the winter season', includeImages: true, variantCount: 3 };
    const quoted = await client.callTool({ name: 'generate_campaign', arguments: args });
    const quoteId = (quoted.structuredContent as { quote: { id: string } }).quote.id;
    const created = await client.request(
      { method: 'tools/call', params: { name: 'generate_campaign', arguments: { ...args, quoteId }, task: {} } },
      CreateTaskResultSchema,
    );
    const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled.status).toBe('cancelled');
    expect((await client.experimental.tasks.getTask(created.task.taskId)).status).toBe('cancelled');
    const scope = workspaceScope(platform.container.orm.em, tenant.workspaceId, actors.operator);
    const job = await platform.container.services.jobs.getByTaskId(scope, created.task.taskId);
    const final = await pollUntil(
      // A fresh unit of work per read, so each read sees the row as the worker left it.
      () =>
        platform.container.services.jobs.get(
          withEntityManager(scope, acrossWorkspaces(platform.container.orm.em)),
          job!.id,
        ),
      (current) => ['cancelled', 'succeeded', 'failed'].includes(current.status),
      { timeoutMs: 60_000, intervalMs: 100, timeoutMessage: (last) => `job ${job!.id} still ${last.status}` },
    );
    expect(['cancelled', 'succeeded']).toContain(final.status);
    const balance = await platform.container.services.credits.balance(
      acrossWorkspaces(platform.container.orm.em),
      tenant.workspaceId,
    );
    expect(balance.held).toBe(0);
  } finally {
    await client.close();
  }
});

it('a plain call without task negotiation returns the started job at once', async () => {
  const client = await legacyClient(tenant.apiKey);
  try {
    const args = { ...startArgs(), intent: 'Mugs as office gifts' };
    const quoted = await client.callTool({ name: 'generate_campaign', arguments: args });
    const quoteId = (quoted.structuredContent as { quote: { id: string } }).quote.id;
    const started = await client.callTool({ name: 'generate_campaign', arguments: { ...args, quoteId } });
    expect(started.structuredContent).toMatchObject({
      status: 'started',
      generation: { taskId: expect.stringMatching(/^tsk_/) },
    });
    expect((started.structuredContent as { generation: { status: string } }).generation.status).not.toBe('complete');
  } finally {
    await client.close();
  }
});

const modernRpc = (apiKey: string, method: string, name: string, params: Record<string, unknown>, withTasks = true) =>
  rawModernRpc(platform.urls.mcp, apiKey, method, name, params, withTasks);

it('2026-07-28 extension: resultType task, detailed tasks/get with the inlined result, tasks/cancel ack', async () => {
  const args = { ...startArgs(), intent: 'Mugs for tea drinkers' };
  const quoted = await modernRpc(tenant.apiKey, 'tools/call', 'generate_campaign', {
    name: 'generate_campaign',
    arguments: args,
  });
  const quoteId = (quoted.result!.structuredContent as { quote: { id: string } }).quote.id;
  const created = await modernRpc(tenant.apiKey, 'tools/call', 'generate_campaign', {
    name: 'generate_campaign',
    arguments: { ...args, quoteId },
  });
  expect(created.result).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 2000, ttlMs: null });
  const taskId = created.result!.taskId as string;
  const task = await pollUntil(
    () => modernRpc(tenant.apiKey, 'tasks/get', taskId, { taskId }),
    (current) => current.result?.status !== 'working',
    { timeoutMs: 30_000, intervalMs: 100, timeoutMessage: `task ${taskId} still working` },
  );
  expect(task.result).toMatchObject({
    resultType: 'complete',
    status: 'completed',
    result: { structuredContent: { generation: { status: 'complete', taskId } } },
  });
  expect((await modernRpc(tenant.apiKey, 'tasks/cancel', taskId, { taskId })).result).toMatchObject({
    resultType: 'complete',
  });
  // Another workspace's key: the task does not exist for it.
  const stranger = await modernRpc(other.apiKey, 'tasks/get', taskId, { taskId });
  expect(stranger.error).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown task/) });
  // Without the extension in the request's capabilities, a start gets the ordinary result at once.
  const plainArgs = { ...args, intent: 'Mugs for the tea room' };
  const call = (extra: Record<string, unknown>) =>
    modernRpc(
      tenant.apiKey,
      'tools/call',
      'generate_campaign',
      { name: 'generate_campaign', arguments: { ...plainArgs, ...extra } },
      false,
    );
  const plainQuote = await call({});
  const plain = await call({ quoteId: (plainQuote.result!.structuredContent as { quote: { id: string } }).quote.id });
  expect(plain.result).toMatchObject({ resultType: 'complete', structuredContent: { status: 'started' } });
});
