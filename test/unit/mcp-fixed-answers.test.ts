/**
 * The MCP endpoint remembers answers that are fixed for a profile (`tools/list`, `prompts/list`,
 * `resources/templates/list`) and replays them with the new JSON-RPC id. Checked over HTTP with both real SDK
 * client lines, against the real endpoint in a minimal Koa app (these methods touch no database): a replay
 * carries exactly the bytes and headers the SDK writes for the same request, the SDK is not reached again,
 * profiles do not share answers, and nothing else is remembered.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import type { Principal } from '../../src/auth/principal.ts';
import { createLogger } from '../../src/logger.ts';
import { createMcpEndpoint, type McpEndpoint } from '../../src/mcp/http-handler.ts';
import { CATALOGUE, type CompiledProfile } from '../../src/mcp/registry.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { connectV1, connectV2 } from '../support/mcp-clients.ts';

const principal: Principal = {
  via: 'api_key',
  workspaceId: 'ws_fixed_answers',
  workspaceName: 'Fixed Answers',
  role: 'viewer',
  userId: null,
  credentialId: 'key:fixed',
  clientId: null,
  internal: false,
  scopes: [],
};

/** The catalogue, counting how often a server is built (each build looks its profile up once). */
function countingCatalogue(): { catalogue: ReadonlyMap<string, CompiledProfile>; builds: () => number } {
  let lookups = 0;
  const catalogue = {
    get: (name: string) => {
      lookups += 1;
      return CATALOGUE.get(name);
    },
    [Symbol.iterator]: () => CATALOGUE[Symbol.iterator](),
  } as unknown as ReadonlyMap<string, CompiledProfile>;
  return { catalogue, builds: () => lookups };
}

interface Served {
  url: string;
  builds: () => number;
  close(): Promise<void>;
}

const servers: Served[] = [];

/** The real endpoint behind a body parser; `x-test-profile` picks the caller's profile. */
async function serve(): Promise<Served> {
  const { catalogue, builds } = countingCatalogue();
  const endpoint: McpEndpoint = createMcpEndpoint({
    orm: undefined as never,
    services: undefined as never,
    log: createLogger({ level: 'silent', name: 'test' }),
    catalogue,
  });
  const app = new Koa();
  app.use(bodyParser());
  app.use(async (ctx) => {
    const profile = ctx.get('x-test-profile') || 'external_default';
    await endpoint.handle(ctx, { principal, profile, requestId: 'test' }, ctx.request.body);
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const served: Served = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/mcp`,
    builds,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await endpoint.close();
    },
  };
  servers.push(served);
  return served;
}

afterAll(async () => {
  for (const served of servers) await served.close();
  await closeTestFetch();
});

const MODERN_HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/list',
};
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const LEGACY_HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2025-11-25',
};

async function post(url: string, headers: Record<string, string>, body: unknown) {
  const response = await testFetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const answerHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!['date', 'connection', 'keep-alive'].includes(name)) answerHeaders[name] = value;
  });
  return { status: response.status, headers: answerHeaders, body: await response.text() };
}

describe.each([
  ['2026-07-28', MODERN_HEADERS, { _meta: MODERN_META }],
  ['2025-11-25', LEGACY_HEADERS, {}],
])('a replayed answer, %s era', (_era, headers, params) => {
  test.each(['tools/list', 'prompts/list', 'resources/templates/list'])(
    '%s: the same bytes and headers as the SDK writes for that request',
    async (method) => {
      const warm = await serve();
      const cold = await serve();
      const request = (id: number | string) => ({ jsonrpc: '2.0', id, method, params });
      const requestHeaders = { ...headers, 'mcp-method': method };
      const first = await post(warm.url, requestHeaders, request(1));
      expect(first.status).toBe(200);
      expect(JSON.parse(first.body)).toMatchObject({ id: 1, result: expect.any(Object) });
      const builds = warm.builds();

      const replayed = await post(warm.url, requestHeaders, request('second "call"'));
      expect(warm.builds()).toBe(builds); // answered from memory: no server was built
      const reference = await post(cold.url, requestHeaders, request('second "call"'));
      expect(cold.builds()).toBeGreaterThan(0);
      expect(replayed.status).toBe(reference.status);
      expect(replayed.headers).toEqual(reference.headers);
      expect(replayed.body).toBe(reference.body);
    },
  );
});

test('both SDK client lines list the same things from memory as from the SDK', async () => {
  const served = await serve();
  for (const connect of [
    () => connectV2(served.url, {}),
    () => connectV2(served.url, {}, 'legacy'),
    () => connectV1(served.url, {}),
  ]) {
    const client = await connect();
    const tools = await client.listTools();
    const prompts = await client.listPrompts();
    const templates = await client.listResourceTemplates();
    const builds = served.builds();
    expect(await client.listTools()).toEqual(tools);
    expect(await client.listPrompts()).toEqual(prompts);
    expect(await client.listResourceTemplates()).toEqual(templates);
    expect(served.builds()).toBe(builds);
    expect(tools.map((tool) => tool.name)).toEqual(CATALOGUE.get('external_default')!.listing.map((t) => t.name));
    await client.close();
  }
});

test('profiles never share a remembered answer', async () => {
  const served = await serve();
  const list = (profile: string, id: number) =>
    post(
      served.url,
      { ...LEGACY_HEADERS, 'x-test-profile': profile },
      { jsonrpc: '2.0', id, method: 'tools/list', params: {} },
    );
  const names = (body: string) =>
    (JSON.parse(body) as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name);
  await list('external_default', 1);
  const defaultTools = names((await list('external_default', 2)).body);
  const analyticsTools = names((await list('analytics_read', 3)).body);
  expect(analyticsTools).toEqual(CATALOGUE.get('analytics_read')!.listing.map((tool) => tool.name));
  expect(analyticsTools).not.toEqual(defaultTools);
  expect(names((await list('external_default', 4)).body)).toEqual(defaultTools);
});

test('errors and other methods are not remembered', async () => {
  const served = await serve();
  // Invalid params reach the SDK's server, which answers an error; an error is never replayed.
  const invalid = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 42 } };
  const first = await post(served.url, LEGACY_HEADERS, invalid);
  expect(JSON.parse(first.body)).toMatchObject({ id: 1, error: { code: expect.any(Number) } });
  const afterFirst = served.builds();
  const again = await post(served.url, LEGACY_HEADERS, { ...invalid, id: 2 });
  expect(JSON.parse(again.body)).toMatchObject({ id: 2, error: { code: expect.any(Number) } });
  expect(served.builds()).toBe(afterFirst + 1);
  // A method outside the fixed set (here `ping`) reaches the SDK every time.
  const ping = { jsonrpc: '2.0', id: 5, method: 'ping' };
  await post(served.url, LEGACY_HEADERS, ping);
  const afterFirstPing = served.builds();
  await post(served.url, LEGACY_HEADERS, { ...ping, id: 6 });
  expect(served.builds()).toBe(afterFirstPing + 1);
});
