/**
 * The MCP endpoint remembers answers that are fixed for a profile (`tools/list`, `prompts/list`,
 * `resources/templates/list`) and replays them with the new JSON-RPC id. Checked over HTTP with both real SDK
 * client lines, against the real endpoint in a minimal Koa app (these methods touch no database): a replay
 * carries exactly the bytes and headers the SDK writes for the same request, the SDK is not reached again,
 * profiles do not share answers, and nothing else is remembered.
 */
import { CATALOGUE } from '../../src/mcp/registry.ts';
import { closeTestFetch } from '../support/http.ts';
import { connectV1, connectV2 } from '../support/mcp-clients.ts';
import {
  LEGACY_HEADERS,
  MODERN_HEADERS,
  MODERN_META,
  postJsonRpc as post,
  serveMcpEndpoint,
  type ServedEndpoint,
} from '../support/mcp-endpoint.ts';

const servers: ServedEndpoint[] = [];

async function serve(): Promise<ServedEndpoint> {
  const served = await serveMcpEndpoint();
  servers.push(served);
  return served;
}

afterAll(async () => {
  for (const served of servers) await served.close();
  await closeTestFetch();
});

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
