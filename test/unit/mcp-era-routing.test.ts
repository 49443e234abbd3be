/**
 * The MCP endpoint sends a message whose params carry the 2026 envelope claim to the modern handler without
 * asking the SDK's `isLegacyRequest` first (`carriesEnvelopeClaim`, http-handler.ts). That shortcut must never
 * take a request the SDK would serve as 2025-era traffic: checked against the SDK's own predicate on every
 * shape of message fast-check finds (requests, notifications, responses, initialize, batches, malformed
 * envelopes, every protocol-version header).
 */
import fc from 'fast-check';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { carriesEnvelopeClaim } from '../../src/mcp/http-handler.ts';

const CLAIM = 'io.modelcontextprotocol/protocolVersion';

const versions = fc.constantFrom('2026-07-28', '2025-11-25', '2025-06-18', '2024-01-01', '', 'garbage');
const meta = fc.record(
  {
    [CLAIM]: fc.oneof(versions, fc.integer(), fc.constant(null)),
    'io.modelcontextprotocol/clientInfo': fc.oneof(
      fc.constant({ name: 'c', version: '1' }),
      fc.constant('not an object'),
    ),
    'io.modelcontextprotocol/clientCapabilities': fc.oneof(fc.constant({}), fc.constant([])),
  },
  { requiredKeys: [] },
);
const params = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant([]),
  fc.record({ _meta: fc.oneof(meta, fc.constant(null), fc.constant('x')), name: fc.constant('query_campaigns') }),
  fc.record({ _meta: meta, protocolVersion: versions }),
);
/** A member present in one message of four. */
const rarely = (value: unknown) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant(value) });
/** Mostly well-formed JSON-RPC (so the SDK's classification goes past its shape checks), sometimes not. */
const message = fc
  .record({
    jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '1.0'),
    id: fc.option(fc.oneof(fc.integer(), fc.string({ maxLength: 4 })), { freq: 4 }),
    method: fc.oneof(
      fc.constantFrom('tools/call', 'tools/list', 'initialize', 'notifications/initialized', 'server/discover'),
      fc.integer(),
    ),
    params,
    result: rarely({}),
    error: rarely({ code: -32600, message: 'x' }),
  })
  .map((m) =>
    Object.fromEntries(
      Object.entries(m).filter(([key, value]) => value !== undefined && !(key === 'id' && value === null)),
    ),
  );
const body = fc.oneof({ weight: 5, arbitrary: message }, { weight: 1, arbitrary: fc.array(message, { maxLength: 3 }) });
const headers = fc.record(
  {
    'mcp-protocol-version': versions,
    'mcp-method': fc.constantFrom('tools/call', 'tools/list', 'initialize'),
  },
  { requiredKeys: [] },
);

test('a message the shortcut calls modern is never legacy by the SDK', async () => {
  let shortcuts = 0;
  await fc.assert(
    fc.asyncProperty(body, headers, async (parsed, extra) => {
      const request = new Request('http://app.localhost/api/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra },
        body: JSON.stringify(parsed),
      });
      if (!carriesEnvelopeClaim(parsed)) return;
      shortcuts += 1;
      expect(await isLegacyRequest(request, parsed)).toBe(false);
    }),
    { numRuns: 4000 },
  );
  // The property is only as good as the cases it saw: plenty of them took the shortcut.
  expect(shortcuts).toBeGreaterThan(80);
});

test('the recorded 2026-07-28 tool call takes the shortcut; 2025-era traffic does not', () => {
  const envelope = {
    [CLAIM]: '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'bench-v2', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const call = { name: 'query_campaigns', arguments: { action: 'list' } };
  expect(
    carriesEnvelopeClaim({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...call, _meta: envelope } }),
  ).toBe(true);
  expect(carriesEnvelopeClaim({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: call })).toBe(false);
  expect(carriesEnvelopeClaim({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: envelope } })).toBe(
    false,
  );
  expect(carriesEnvelopeClaim([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }])).toBe(
    false,
  );
});
