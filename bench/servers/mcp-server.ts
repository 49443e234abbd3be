/**
 * Benchmark server for the MCP surface (a separate process, so the load generator does not share its event
 * loop). It seeds one workspace with API keys and campaigns (plus a noisier second workspace, so the campaign
 * list has to use its workspace index), then listens three times:
 *   - bare:    a Koa JSON route, nothing else (the baseline);
 *   - bareListing: a bare Koa route answering a JSON-RPC result of the `external_default` tool listing
 *              (~66 KB) with the request's id, read from the raw body (a reference for `tools/list`: what
 *              sending that many bytes costs on this machine, with no MCP, auth or database);
 *   - guarded: the same route behind the tool server's real request id, error boundary, Origin check,
 *              API-key authentication and PostgreSQL sliding-log limiter — no MCP (tells how much of a tool call is
 *              the edge and how much is MCP plus the query);
 *   - app:     the real application (`createHttpApp`), whose `/api/mcp` is what is measured.
 *
 * It talks to the benchmark over IPC (started by `bench/support/ipc-server-process.ts`):
 *   - `ready` (sent once): ports, host names, API keys;
 *   - `heap`: forces full garbage collections (the process runs with `--expose-gc`) and answers
 *     `process.memoryUsage()`, so heap growth is measured on the server itself without any product endpoint;
 *   - `cpu`: `process.cpuUsage()`, so the benchmark can tell this process's CPU time per request;
 *   - `profile:start` / `profile:stop`: a V8 CPU profile of this process through `node:inspector` (no debugger
 *     port is opened), written where the benchmark says.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import Koa from 'koa';
import { loadConfigOrExit, processEnv } from '../../src/config.ts';
import { createContainer } from '../../src/container.ts';
import { createHttpApp } from '../../src/http/app.ts';
import { toolServerAuthentication, toolServerOriginCheck } from '../../src/http/middleware/authenticate.ts';
import { errorBoundary, renderErrorsWith, renderJsonRpc } from '../../src/http/middleware/error-boundary.ts';
import { toolServerRateLimit } from '../../src/http/middleware/rate-limit.ts';
import { requestId } from '../../src/http/middleware/request-id.ts';
import { createLogger } from '../../src/logger.ts';
import { CATALOGUE } from '../../src/mcp/registry.ts';
import type { McpBenchCommand, McpBenchReady, McpBenchReply } from '../support/mcp-bench-protocol.ts';
import { acrossWorkspaces, workspaceScope, actors } from '../../src/domain/shared/scope.ts';

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
  for (let i = 0; i < campaignCount; i += 1) {
    const campaign = await campaigns.create(scope, {
      name: `${name} campaign ${i}`,
      objective: 'Sell linen shirts before the summer ends',
      productIds: [product.id],
    });
    for (let v = 0; v < variantsPerCampaign; v += 1) {
      await campaigns.createVariant(scope, campaign.id, {
        headline: `Stay cool ${i}.${v}`,
        body: 'Linen that breathes, for the hottest days of the year.',
        callToAction: 'Shop now',
      });
    }
  }
  return { owner, workspace };
}

const { owner, workspace } = await seedWorkspace('Bench MCP', Number(env.BENCH_CAMPAIGNS ?? 50), 2);
await seedWorkspace('Bench neighbour', Number(env.BENCH_OTHER_CAMPAIGNS ?? 200), 0);
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

const guarded = new Koa();
guarded.use(requestId());
guarded.use(errorBoundary(log));
guarded.use(renderErrorsWith(renderJsonRpc));
guarded.use(toolServerOriginCheck(config));
guarded.use(toolServerAuthentication(config, container.authenticator));
guarded.use(
  toolServerRateLimit(container.services.rateLimiter, {
    name: 'tool-server',
    limit: config.rateLimitPerMinute,
    windowSeconds: 60,
  }),
);
guarded.use((ctx) => {
  ctx.body = payload;
});

const { listener } = createHttpApp(container);

function listen(listener: http.RequestListener, port = 0): Promise<number> {
  return new Promise((resolve) => {
    const server = http.createServer(listener);
    server.keepAliveTimeout = 65_000;
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run this server with --expose-gc (the heap samples need forced collections)');
const profiler = new Session();

async function answer(command: McpBenchCommand): Promise<McpBenchReply> {
  switch (command.type) {
    case 'heap':
      // Two full collections: the first may only queue finalizers whose objects the second frees.
      gc!();
      gc!();
      return { type: 'heap', id: command.id, memory: process.memoryUsage() };
    case 'cpu':
      return { type: 'cpu', id: command.id, usage: process.cpuUsage() };
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
  bare: await listen(bare.callback()),
  bareListing: await listen(bareListing.callback()),
  guarded: await listen(guarded.callback()),
  app: await listen(listener, config.http.port),
  mcpUrl: config.urls.mcp,
  workspaceName: workspace.name,
  keys,
};
process.send!(ready);
