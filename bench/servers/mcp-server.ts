/**
 * Benchmark server for the MCP surface (a separate process, so the load generator does not share its event
 * loop). It seeds one workspace with API keys and campaigns, one of them with a generation in progress (plus a
 * noisier second workspace, so the campaign list has to use its workspace index), then listens on:
 *   - bare:    a Koa JSON route, nothing else (a reference: what Koa itself costs here);
 *   - bareListing: a bare Koa route answering a JSON-RPC result of the `external_default` tool listing
 *              (~66 KB) with the request's id, read from the raw body (the baseline of `tools/list`: what
 *              sending those bytes costs on this machine, with no MCP, auth or database);
 *   - guarded: the bare route behind the tool server's real request id, error boundary, Origin check,
 *              API-key authentication and PostgreSQL sliding-log limiter — no MCP, no query (the edge alone);
 *   - sameWork: the guarded route that then parses the JSON-RPC body and does what `tools/call query_campaigns
 *              list` does — the campaigns service's list through the same driver, the tool's own output — and
 *              answers it as the same JSON-RPC result bytes (the baseline of `tools/call`: everything but MCP);
 *   - peer:    the same edge in front of the SDK's documented way — `createMcpHandler` with a new `McpServer`
 *              per request, `query_campaigns` registered per request with its zod schemas, the list read
 *              through MikroORM entities in a fork (the baseline "ours ≥ 3×" is measured against);
 *   - app:     the real application (`createHttpApp`), whose `/api/mcp` is what is measured.
 * Each listener's PostgreSQL statements and EntityManager forks are counted (`support/db-work-counter.ts`).
 *
 * It talks to the benchmark over IPC (started by `bench/support/ipc-server-process.ts`):
 *   - `ready` (sent once): ports, host names, API keys, and what the seed should answer;
 *   - `heap`: forces full garbage collections (the process runs with `--expose-gc`) and answers
 *     `process.memoryUsage()`, so heap growth is measured on the server itself without any product endpoint;
 *   - `cpu`: `process.cpuUsage()`, so the benchmark can tell this process's CPU time per request;
 *   - `dbWork`: the statements and forks counted so far, per listener;
 *   - `gc:start` / `gc:stop`: what the garbage collector did in between (`support/gc-profile.ts`);
 *   - `heap-profile:start` / `heap-profile:stop`: a V8 sampling heap profile of the objects allocated in between
 *     that outlived the young generation (or of every object allocated, with `youngToo`);
 *   - `profile:start` / `profile:stop`: a V8 CPU profile of this process through `node:inspector` (no debugger
 *     port is opened), written where the benchmark says.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import { GCProfiler } from 'node:v8';
import Koa, { type Middleware } from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { createMcpHandler, McpServer, type AuthInfo } from '@modelcontextprotocol/server';
import { loadConfigOrExit, processEnv } from '../../src/config.ts';
import { createContainer } from '../../src/container.ts';
import { actorOf, type Principal } from '../../src/auth/principal.ts';
import { Campaign } from '../../src/domain/campaigns/campaign.entity.ts';
import { toCampaignView } from '../../src/domain/campaigns/campaign-view.ts';
import { Deployment } from '../../src/domain/campaigns/deployment.entity.ts';
import { Variant } from '../../src/domain/campaigns/variant.entity.ts';
import { GENERATION_KIND } from '../../src/domain/generation/generation-launcher.ts';
import { Job } from '../../src/domain/jobs/job.entity.ts';
import { DEFAULT_PAGE_SIZE, toPage } from '../../src/domain/shared/pagination.ts';
import { acrossWorkspaces, actors, ownedBy, WORKSPACE_FILTER, workspaceScope } from '../../src/domain/shared/scope.ts';
import { createHttpApp } from '../../src/http/app.ts';
import { toolServerAuthentication, toolServerOriginCheck } from '../../src/http/middleware/authenticate.ts';
import { errorBoundary, renderErrorsWith, renderJsonRpc } from '../../src/http/middleware/error-boundary.ts';
import { toolServerRateLimit } from '../../src/http/middleware/rate-limit.ts';
import { requestId } from '../../src/http/middleware/request-id.ts';
import { createLogger } from '../../src/logger.ts';
import type { ToolContext } from '../../src/mcp/define-tool.ts';
import { DEFAULT_PROFILE } from '../../src/mcp/profiles.ts';
import { CATALOGUE, PROFILE_SUMMARIES } from '../../src/mcp/registry.ts';
import { toToolResult } from '../../src/mcp/tool-result.ts';
import queryCampaigns from '../../src/mcp/tools/query-campaigns.ts';
import { countedListener, dbWorkSoFar } from '../support/db-work-counter.ts';
import { summariseGcProfile } from '../support/gc-profile.ts';
import type { McpBenchCommand, McpBenchReady, McpBenchReply } from '../support/mcp-bench-protocol.ts';

const env = processEnv();
const config = loadConfigOrExit(env);
const log = createLogger({ level: 'silent', name: 'bench' });
const container = await createContainer(config, { log, migrate: false });
const { workspaces, campaigns, products } = container.services;

async function seedWorkspace(name: string, campaignCount: number, variantsPerCampaign: number) {
  const em = acrossWorkspaces(container.orm.em);
  const owner = await workspaces.createUser(em, {
    email: `bench-${name.toLowerCase().replace(/\W+/g, '-')}-${Date.now()}@example.test`,
    name: 'Bench',
  });
  const workspace = await workspaces.createWorkspace(em, { name, ownerUserId: owner.id });
  const scope = workspaceScope(container.orm.em, workspace.id, actors.operator);
  const product = await products.create(scope, {
    title: 'Linen shirt',
    description: 'Breathable washed linen, cut loose for hot days.',
    price: 49,
    currency: 'EUR',
  });
  const campaignIds: string[] = [];
  for (let i = 0; i < campaignCount; i += 1) {
    const campaign = await campaigns.create(scope, {
      name: `${name} campaign ${i}`,
      objective: 'Sell linen shirts before the summer ends',
      productIds: [product.id],
    });
    campaignIds.push(campaign.id);
    for (let v = 0; v < variantsPerCampaign; v += 1) {
      await campaigns.createVariant(scope, campaign.id, {
        headline: `Stay cool ${i}.${v}`,
        body: 'Linen that breathes, for the hottest days of the year.',
        callToAction: 'Shop now',
      });
    }
  }
  return { owner, workspace, scope, campaignIds };
}

const seeded = await seedWorkspace('Bench MCP', Number(env.BENCH_CAMPAIGNS ?? 50), 2);
const { owner, workspace } = seeded;
await seedWorkspace('Bench neighbour', Number(env.BENCH_OTHER_CAMPAIGNS ?? 200), 0);

/**
 * A generation in progress on the oldest campaign, as an agent polls it with `generation_status`: the job row
 * the launcher would have written (no workflow runs; the status read never asks Temporal).
 */
const generatingCampaignId = seeded.campaignIds[0]!;
const generationJob = seeded.scope.em.create(Job, {
  ...ownedBy(seeded.scope),
  kind: GENERATION_KIND,
  status: 'running',
  workflowId: `bench-generation-${generatingCampaignId}`,
  subjectId: generatingCampaignId,
  input: { mode: 'start' },
  progress: { fraction: 0.4, step: 'copy', message: 'Writing the variants' },
  createdBy: seeded.scope.actor,
  startedAt: new Date(),
});
await seeded.scope.em.flush();

const keys: string[] = [];
const keyEm = acrossWorkspaces(container.orm.em);
for (let i = 0; i < Number(env.BENCH_KEYS ?? 200); i += 1) {
  const created = await workspaces.createApiKey(keyEm, workspace.id, {
    name: `bench-${i}`,
    role: 'editor',
    createdByUserId: owner.id,
  });
  keys.push(created.secret);
}

/**
 * The first page the list must answer, read here with plain SQL on its own connection — not through the
 * service under test — so the benchmark checks every case against the database, not against itself.
 */
const expectedPage = await container.orm.em
  .getConnection()
  .execute<{ id: string }[]>(
    'select id from campaigns where workspace_id = ? and deleted_at is null order by created_at desc, id desc limit ?',
    [workspace.id, DEFAULT_PAGE_SIZE],
  );

const payload = { ok: true };
const bare = new Koa();
bare.use((ctx) => {
  ctx.body = payload;
});

// The listing answer split around its id, as the platform's remembered answers are.
const listingAnswer = JSON.stringify({ result: { tools: CATALOGUE.get('external_default')!.listing }, jsonrpc: '2.0' });
const [beforeId, afterId] = [Buffer.from(`${listingAnswer.slice(0, -1)},"id":`), Buffer.from('}')];
const bareListing = new Koa();
bareListing.use(async (ctx) => {
  let raw = '';
  for await (const chunk of ctx.req) raw += String(chunk);
  const id = /"id":(\d+)/.exec(raw)?.[1] ?? 'null';
  ctx.type = 'application/json';
  ctx.body = Buffer.concat([beforeId, Buffer.from(id), afterId]);
});

/**
 * The tool server's edge as `routes/mcp.ts` and `app.ts` build it — request id, error boundary rendering
 * JSON-RPC errors, Origin check, API-key authentication, the PostgreSQL limiter — in front of `handler`.
 */
function behindTheEdge(...handlers: Middleware[]): Koa {
  const app = new Koa();
  app.use(requestId());
  app.use(errorBoundary(log));
  app.use(renderErrorsWith(renderJsonRpc));
  app.use(toolServerOriginCheck(config));
  app.use(toolServerAuthentication(config, container.authenticator));
  app.use(
    toolServerRateLimit(container.services.rateLimiter, {
      name: 'tool-server',
      limit: config.rateLimitPerMinute,
      windowSeconds: 60,
    }),
  );
  for (const handler of handlers) app.use(handler);
  return app;
}

const guarded = behindTheEdge((ctx) => {
  ctx.body = payload;
});

/** JSON bodies, parsed as `/api/mcp` parses them (JSON only, 1 MiB). */
const jsonBody = bodyParser({ enableTypes: ['json'], jsonLimit: 1024 * 1024, encoding: 'utf-8' });

/**
 * The same work as `tools/call query_campaigns list` with no MCP: the tool's own list action (so it calls the
 * same campaigns service, which runs the same statement through the same driver, and writes the same text),
 * wrapped as the tool's result, answered as a JSON-RPC result with the request's id. The benchmark checks that
 * these bytes equal what the real `tools/call` answers.
 */
const listAction = queryCampaigns.actions.list!;
const sameWork = behindTheEdge(jsonBody, async (ctx) => {
  const principal = ctx.state.principal as Principal;
  const request = ctx.request.body as { id: number | string };
  const toolContext = {
    principal,
    scope: workspaceScope(container.orm.em, principal.workspaceId, actorOf(principal)),
    services: container.services,
    log,
    era: 'modern',
    profile: DEFAULT_PROFILE,
    profileSummaries: PROFILE_SUMMARIES,
    audit: async () => undefined,
  } as ToolContext;
  const output = await listAction.run(toolContext, { action: 'list' } as never);
  ctx.type = 'application/json';
  ctx.body = JSON.stringify({ result: toToolResult(output), jsonrpc: '2.0', id: request.id });
});

/**
 * The way the SDK's documentation leads people to write this server: `createMcpHandler` (both eras, its
 * defaults) with a factory that builds a new `McpServer` per request and registers `query_campaigns` on it with
 * its zod input and output schemas; the tool reads the page through MikroORM entities in a fork of the
 * EntityManager (`find` with the products populated, then the variant and active-deployment counts grouped by
 * campaign with `countBy`: four statements, none per campaign). Its text is written like our tool's, so both
 * answers carry the same content.
 */
const peerHandler = createMcpHandler(({ authInfo }) => {
  const workspaceId = (authInfo?.extra as { workspaceId: string }).workspaceId;
  const server = new McpServer({ name: 'campaigns-peer', version: '1.0.0' });
  server.registerTool(
    'query_campaigns',
    {
      title: queryCampaigns.annotations.title,
      description: queryCampaigns.description,
      inputSchema: queryCampaigns.input,
      outputSchema: queryCampaigns.output,
      annotations: queryCampaigns.annotations,
    },
    async () => {
      const em = container.orm.em.fork();
      // Workspace-owned reads must name their workspace (domain/shared/scope.ts refuses unscoped ones).
      em.setFilterParams(WORKSPACE_FILTER, { workspaceId });
      const rows = await em.find(
        Campaign,
        { deletedAt: null },
        { orderBy: { createdAt: 'desc', id: 'desc' }, limit: DEFAULT_PAGE_SIZE + 1, populate: ['products'] },
      );
      const ids = rows.map((row) => row.id);
      const [variantCounts, deploymentCounts] = await Promise.all([
        em.countBy(Variant, 'campaign', { where: { campaign: { $in: ids }, deletedAt: null } }),
        em.countBy(Deployment, 'campaign', { where: { campaign: { $in: ids }, status: 'active' } }),
      ]);
      const page = toPage(rows, DEFAULT_PAGE_SIZE, (row) =>
        toCampaignView(row, {
          variantCount: variantCounts[row.id] ?? 0,
          activeDeployments: deploymentCounts[row.id] ?? 0,
          productIds: row.products.getItems().map((product) => product.id),
        }),
      );
      const structuredContent = { action: 'list' as const, campaigns: page.items, nextCursor: page.nextCursor };
      const text = `${page.items.length} campaign(s): ${page.items.map((c) => `${c.name} (${c.id}, ${c.status})`).join('; ')}${page.nextCursor ? '; more with nextCursor' : ''}.`;
      return { content: [{ type: 'text' as const, text }], structuredContent };
    },
  );
  return server;
});
const peer = behindTheEdge(jsonBody, async (ctx) => {
  const principal = ctx.state.principal as Principal;
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.request.headers)) {
    if (value !== undefined && name !== 'x-api-key') headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const authInfo: AuthInfo = {
    token: principal.credentialId,
    clientId: principal.credentialId,
    scopes: principal.scopes,
    extra: { workspaceId: principal.workspaceId },
  };
  const response = await peerHandler.fetch(
    new Request(new URL(ctx.originalUrl, `http://${ctx.host}`), { method: 'POST', headers }),
    { authInfo, parsedBody: ctx.request.body },
  );
  ctx.status = response.status;
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') ctx.set(name, value);
  });
  ctx.body = Buffer.from(await response.arrayBuffer());
});

const { listener } = createHttpApp(container);

function listen(name: string, listener: http.RequestListener, port = 0): Promise<number> {
  return new Promise((resolve) => {
    const server = http.createServer(countedListener(name, listener));
    server.keepAliveTimeout = 65_000;
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run this server with --expose-gc (the heap samples need forced collections)');
const profiler = new Session();
let gcProfiler: GCProfiler | undefined;

async function answer(command: McpBenchCommand): Promise<McpBenchReply> {
  switch (command.type) {
    case 'heap':
      // Two full collections: the first may only queue finalizers whose objects the second frees.
      gc!();
      gc!();
      return { type: 'heap', id: command.id, memory: process.memoryUsage() };
    case 'cpu':
      return { type: 'cpu', id: command.id, usage: process.cpuUsage() };
    case 'dbWork':
      return { type: 'dbWork', id: command.id, ...dbWorkSoFar() };
    case 'gc:start':
      gcProfiler = new GCProfiler();
      gcProfiler.start();
      return { type: 'done', id: command.id };
    case 'gc:stop': {
      const recorded = gcProfiler?.stop();
      gcProfiler = undefined;
      if (!recorded) throw new Error('gc:stop without gc:start');
      return { type: 'gc', id: command.id, summary: summariseGcProfile(recorded) };
    }
    case 'heap-profile:start':
      // Only objects that outlive the young generation: those a scavenge frees are dropped from the sample, those
      // a later full collection frees are kept (they were promoted, which is what is being looked for).
      profiler.connect();
      await profiler.post('HeapProfiler.enable');
      await profiler.post('HeapProfiler.startSampling', {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: command.youngToo,
      });
      return { type: 'done', id: command.id };
    case 'heap-profile:stop': {
      const { profile } = await profiler.post('HeapProfiler.stopSampling');
      profiler.disconnect();
      await fs.writeFile(command.path, JSON.stringify(profile));
      return { type: 'done', id: command.id };
    }
    case 'profile:start':
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
      await profiler.post('Profiler.start');
      return { type: 'done', id: command.id };
    case 'profile:stop': {
      const { profile } = await profiler.post('Profiler.stop');
      profiler.disconnect();
      await fs.writeFile(command.path, JSON.stringify(profile));
      return { type: 'done', id: command.id };
    }
  }
}

process.on('message', (message: McpBenchCommand) => {
  void answer(message).then(
    (reply) => process.send!(reply),
    (error: unknown) => process.send!({ type: 'failed', id: message.id, message: String(error) } as McpBenchReply),
  );
});

const ready: McpBenchReady = {
  type: 'ready',
  bare: await listen('bare', bare.callback()),
  bareListing: await listen('bareListing', bareListing.callback()),
  guarded: await listen('guarded', guarded.callback()),
  sameWork: await listen('sameWork', sameWork.callback()),
  peer: await listen('peer', peer.callback()),
  app: await listen('app', listener, config.http.port),
  mcpUrl: config.urls.mcp,
  workspaceName: workspace.name,
  keys,
  expectedCampaignIds: expectedPage.map((row) => row.id),
  generation: { campaignId: generatingCampaignId, jobId: generationJob.id },
};
process.send!(ready);
