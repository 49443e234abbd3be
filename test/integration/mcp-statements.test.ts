/**
 * What one MCP request costs PostgreSQL (issue 25, target 4), counted on the real platform and a real
 * PostgreSQL, through both real SDK client lines: the v2 client pinned to 2026-07-28 (per-request envelope)
 * and the v1 client (2025-11-25, answered statelessly).
 *
 * Every statement any path sends ends in `pg.Client.prototype.query` (MikroORM through Kysely, the named
 * statements of the hot paths, fire-and-forget writes), so the test wraps that one method, as
 * src/tracing/pg-spans.ts does, and counts `EntityManager.fork` the same way. Each HTTP request of a client is
 * one window: it opens when the request is sent and closes a moment after the answer was read, so a write that
 * leaves after the answer (bookkeeping on the key, an audit row) is counted against the request that caused it.
 * The clients send one request at a time and nothing else runs in the test platform (no worker, no
 * housekeeping), so every statement in a window belongs to its request.
 *
 * The budgets, with the API-key lookup cached (as it is after a key's first request):
 * - `tools/call query_campaigns {action: list}`: two statements, the rate limit and the list;
 * - `tools/call query_campaigns {action: generation_status}`: the rate limit and one statement of its own;
 * - everything else a client sends here (initialize, server/discover, tools/list, the initialized
 *   notification): the rate limit only;
 * - no EntityManager fork on any of them: none of them loads or changes an entity.
 */
import { EntityManager } from '@mikro-orm/core';
import pg from 'pg';
import type { Container } from '../../src/container.ts';
import { Job } from '../../src/domain/jobs/job.entity.ts';
import { newTaskId } from '../../src/domain/jobs/task-ids.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { GENERATION_KIND } from '../../src/domain/generation/generation-launcher.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { scopeOf } from '../support/seed.ts';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** What PostgreSQL and the ORM were asked for during one HTTP request. */
interface RequestCost {
  /** The JSON-RPC method (and the tool's action, for a tools/call) of the request. */
  label: string;
  /** Each statement: its prepared-statement name if it has one, else its SQL text, whitespace folded. */
  statements: string[];
  forks: number;
}

let platform: TestPlatform;
let tenant: Tenant;
let campaignIds: string[];
let generatedCampaignId: string;
let otherCampaignId: string;
/** The request whose window is open, if any. */
let open: RequestCost | null = null;
let restore: (() => void) | undefined;

type Query = (this: pg.Client, ...args: unknown[]) => unknown;
type Fork = (this: EntityManager, ...args: unknown[]) => EntityManager;

/** Counts every statement and every fork into the open window; returns the function that puts both back. */
function countStatementsAndForks(): () => void {
  const client = pg.Client.prototype as unknown as { query: Query };
  const query = client.query;
  client.query = function countedQuery(this: pg.Client, ...args: unknown[]): unknown {
    const first = args[0] as string | { name?: string; text?: string } | undefined;
    const statement = typeof first === 'string' ? first : (first?.name ?? first?.text ?? '(unknown)');
    open?.statements.push(statement.replace(/\s+/g, ' ').trim().slice(0, 160));
    return query.apply(this, args);
  };
  const manager = EntityManager.prototype as unknown as { fork: Fork };
  const fork = manager.fork;
  manager.fork = function countedFork(this: EntityManager, ...args: unknown[]): EntityManager {
    if (open) open.forks += 1;
    return fork.apply(this, args);
  };
  return () => {
    client.query = query;
    manager.fork = fork;
  };
}

function labelOf(body: unknown): string {
  const message = (typeof body === 'string' ? JSON.parse(body) : {}) as {
    method?: string;
    params?: { name?: string; arguments?: { action?: string } };
  };
  if (message.method === 'tools/call') return `tools/call ${message.params?.name} ${message.params?.arguments?.action}`;
  return message.method ?? '(no method)';
}

/**
 * The client's fetch: each request is a window, closed once the answer is read and the event loop has had a
 * moment for work the request left behind (a fire-and-forget write goes out within a few ms of the answer).
 */
function measuringFetch(costs: RequestCost[]): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const cost: RequestCost = { label: `${init?.method ?? 'GET'} ${labelOf(init?.body)}`, statements: [], forks: 0 };
    // Two windows at once could not tell whose statement is whose: the clients here send one request at a time.
    if (open) throw new Error(`${cost.label} was sent while ${open.label} was still being measured`);
    open = cost;
    try {
      const response = await testFetch(input as string, init as never);
      const body = await response.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 50));
      costs.push(cost);
      return new Response(response.status === 202 || body.byteLength === 0 ? null : body, {
        status: response.status,
        headers: response.headers,
      });
    } finally {
      open = null;
    }
  }) as typeof fetch;
}

interface MeasuredClient {
  callTool(args: Record<string, unknown>): Promise<Record<string, unknown>>;
  listTools(): Promise<unknown[]>;
  close(): Promise<void>;
}

/** After a handshake: the 2025 client opens its stream (a GET, refused with 405) on its own, just after it. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 200));

async function connect(era: 'modern' | 'legacy', costs: RequestCost[]): Promise<MeasuredClient> {
  const options = { fetch: measuringFetch(costs), requestInit: { headers: { 'x-api-key': tenant.apiKey } } };
  const url = new URL(platform.urls.mcp);
  const call = async (client: { callTool(params: unknown): Promise<unknown> }, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name: 'query_campaigns', arguments: args })) as {
      isError?: boolean;
      structuredContent?: Record<string, unknown>;
      content: { text?: string }[];
    };
    if (result.isError) throw new Error(`query_campaigns failed: ${result.content[0]?.text}`);
    return result.structuredContent!;
  };
  if (era === 'modern') {
    const client = new ClientV2(
      { name: 'statements-v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new TransportV2(url, options));
    expect(client.getProtocolEra()).toBe('modern');
    await settled();
    return {
      callTool: (args) => call(client, args),
      listTools: async () => (await client.listTools()).tools,
      close: () => client.close(),
    };
  }
  const client = new ClientV1({ name: 'statements-v1', version: '1.0.0' });
  await client.connect(new TransportV1(url, options));
  await settled();
  return {
    callTool: (args) => call(client, args),
    listTools: async () => (await client.listTools()).tools,
    close: () => client.close(),
  };
}

async function seedGeneration(container: Container): Promise<string> {
  const scope = scopeOf(container, tenant);
  const campaign = await container.services.campaigns.create(scope, { name: 'Generated spring' });
  const em = acrossWorkspaces(container.orm.em);
  em.create(Job, {
    workspace: tenant.workspaceId,
    taskId: newTaskId(),
    kind: GENERATION_KIND,
    status: 'running',
    workflowId: `generation:${campaign.id}`,
    runId: null,
    subjectId: campaign.id,
    input: { mode: 'start', steps: ['copy', 'images'] },
    progress: { fraction: 0.5, step: 'copy' },
    result: null,
    error: null,
    createdBy: 'test:statements',
    startedAt: new Date(),
    finishedAt: null,
    cancelRequestedAt: null,
  });
  await em.flush();
  return campaign.id;
}

beforeAll(async () => {
  // The budgets count a remembered key. The key is remembered for a second by default, which is shorter than
  // this file takes; a minute keeps the lookup out of every window after the first request without timing luck.
  platform = await startTestPlatform({ label: 'statements', env: { API_KEY_CACHE_TTL_MS: '60000' } });
  tenant = await createTenant(platform.container);
  const scope = scopeOf(platform.container, tenant);
  campaignIds = [];
  for (const name of ['Summer linen', 'Autumn wool', 'Winter down']) {
    campaignIds.push((await platform.container.services.campaigns.create(scope, { name })).id);
  }
  generatedCampaignId = await seedGeneration(platform.container);
  // Another workspace's campaign: never in this tenant's list.
  const other = await createTenant(platform.container);
  otherCampaignId = (
    await platform.container.services.campaigns.create(scopeOf(platform.container, other), { name: 'Not yours' })
  ).id;
  // The key's first request reads it (and stamps its last use); every later one finds it remembered.
  const warm = await testFetch(platform.urls.mcp, {
    method: 'POST',
    headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/list' }),
  });
  expect(warm.status).toBe(200);
  await warm.text();
  restore = countStatementsAndForks();
});

afterAll(async () => {
  restore?.();
  await platform?.close();
  await closeTestFetch();
});

/** The rate limit's statement (rate-limiter.ts), which every request of the tool server sends once. */
const RATE_LIMIT = 'rate-limit-log-consume';

describe.each([
  ['2026-07-28 (per-request envelope)', 'modern' as const],
  ['2025-11-25 (stateless)', 'legacy' as const],
])('%s', (_label, era) => {
  const costs: RequestCost[] = [];
  let client: MeasuredClient;

  beforeAll(async () => {
    client = await connect(era, costs);
  });
  afterAll(async () => {
    await client.close();
  });

  test('query_campaigns list: the rate limit and the list, no EntityManager', async () => {
    costs.length = 0;
    const answer = await client.callTool({ action: 'list' });
    expect((answer.campaigns as { id: string }[]).map((c) => c.id).sort()).toEqual(
      [...campaignIds, generatedCampaignId].sort(),
    );
    expect(costs.map((c) => c.label)).toEqual(['POST tools/call query_campaigns list']);
    const [cost] = costs;
    expect({ statements: cost!.statements, forks: cost!.forks }).toEqual({
      statements: [RATE_LIMIT, expect.stringMatching(/^campaign-list/)],
      forks: 0,
    });
    // A filtered list is the same two statements (another named statement for that shape).
    costs.length = 0;
    const filtered = await client.callTool({ action: 'list', search: 'linen', limit: 1 });
    expect((filtered.campaigns as { id: string }[]).map((c) => c.id)).toEqual([campaignIds[0]]);
    expect(costs.map((c) => [c.statements.length, c.forks])).toEqual([[2, 0]]);
  });

  test('query_campaigns generation_status: the rate limit and one statement, no EntityManager', async () => {
    costs.length = 0;
    const answer = await client.callTool({ action: 'generation_status', campaignId: generatedCampaignId });
    expect(answer.generation).toMatchObject({
      campaignId: generatedCampaignId,
      status: 'in_progress',
      step: 'copy',
      progress: 0.5,
      mode: 'start',
      steps: ['copy', 'images'],
    });
    expect(costs).toHaveLength(1);
    const [cost] = costs;
    expect(cost!.statements[0]).toBe(RATE_LIMIT);
    expect({ statements: cost!.statements.length, forks: cost!.forks }).toEqual({ statements: 2, forks: 0 });
    // A campaign never generated: the same single statement answers null.
    costs.length = 0;
    const never = await client.callTool({ action: 'generation_status', campaignId: campaignIds[1] });
    expect(never.generation).toBeNull();
    expect(costs.map((c) => [c.statements.length, c.forks])).toEqual([[2, 0]]);
    // Another workspace's campaign is not there, and finding that out costs no more.
    costs.length = 0;
    await expect(client.callTool({ action: 'generation_status', campaignId: otherCampaignId })).rejects.toThrow(
      /not found/i,
    );
    expect(costs.map((c) => [c.statements.length, c.forks])).toEqual([[2, 0]]);
  });

  test('the handshake, tools/list and notifications: the rate limit only, no EntityManager', async () => {
    costs.length = 0;
    const probe = await connect(era, costs);
    await probe.listTools();
    await probe.close();
    const posts = costs.filter((c) => c.label.startsWith('POST'));
    expect(posts.length).toBeGreaterThan(0);
    for (const cost of posts) {
      expect([cost.label, cost.statements, cost.forks]).toEqual([cost.label, [RATE_LIMIT], 0]);
    }
    // Anything else the client sent (the 2025 client's GET for a stream, refused with 405) costs nothing.
    for (const cost of costs.filter((c) => !c.label.startsWith('POST'))) {
      expect([cost.label, cost.statements.length, cost.forks]).toEqual([cost.label, 0, 0]);
    }
  });
});
