/**
 * Protocol errors never carry raw exception text (spec: a stable code and a safe message). Malformed params
 * of any method are "invalid params" (-32602) with a readable message, in both eras, instead of the SDK's
 * "internal error" carrying a dump of validation issues; an unexpected failure is "internal error" naming
 * only a reference id, which the log carries next to the real error.
 */
import { createLogger, type Logger } from '../../src/logger.ts';
import { closeTestFetch } from '../support/http.ts';
import {
  LEGACY_HEADERS,
  MODERN_HEADERS,
  MODERN_META,
  postJsonRpc,
  serveMcpEndpoint,
  type ServedEndpoint,
} from '../support/mcp-endpoint.ts';

let served: ServedEndpoint;
/** A failure of ours whose text must never reach the client: it names a host and a credential. */
const UNEXPECTED = new Error('connect ECONNREFUSED db.internal:5432 (password authentication for user "platform")');
const logged: { reference?: string; err?: unknown }[] = [];

beforeAll(async () => {
  const log = createLogger({ level: 'silent', name: 'test' });
  // A logger that keeps what is logged as an error, so the reference in an answer can be found in the log.
  const recording = (base: Logger): Logger =>
    Object.assign(Object.create(base) as Logger, {
      child: () => recording(base),
      error: (fields: { reference?: string; err?: unknown }) => {
        logged.push(fields);
      },
    });
  served = await serveMcpEndpoint({
    log: recording(log),
    // An entity manager nothing uses, and an organisation read that fails the way a real outage would.
    orm: { em: { fork: () => ({}) } },
    services: {
      organization: {
        get: async () => {
          throw UNEXPECTED;
        },
      },
    },
  });
});

afterAll(async () => {
  await served.close();
  await closeTestFetch();
});

interface ErrorAnswer {
  id: number;
  error?: { code: number; message: string };
  result?: unknown;
}

describe.each([
  ['2026-07-28', MODERN_HEADERS, { _meta: MODERN_META }],
  ['2025-11-25', LEGACY_HEADERS, {}],
])('%s era', (_era, headers, envelope) => {
  const send = async (method: string, params: Record<string, unknown>): Promise<ErrorAnswer> => {
    // 2026-07-28 clients name the method and its target (tool, prompt or resource) in headers too.
    const target = [params.name, params.uri].find((value) => typeof value === 'string') as string | undefined;
    const answer = await postJsonRpc(
      served.url,
      { ...headers, 'mcp-method': method, ...(target ? { 'mcp-name': target } : {}) },
      { jsonrpc: '2.0', id: 9, method, params: { ...envelope, ...params } },
    );
    return JSON.parse(answer.body) as ErrorAnswer;
  };

  test.each([
    ['tools/list', { cursor: 42 }, 'params.cursor'],
    ['prompts/get', { name: 5 }, 'params.name'],
    ['resources/read', { uri: 7 }, 'params.uri'],
    ['tools/call', { name: 'query_campaigns', arguments: 'list' }, 'params.arguments'],
  ])('%s with malformed params is invalid params, said readably', async (method, params, path) => {
    const answer = await send(method, params);
    expect(answer.id).toBe(9);
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toMatch(new RegExp(`^Invalid ${method} request: ${path.replace('.', '\\.')}: `));
    // No dump of the validator's issue objects.
    expect(answer.error?.message).not.toMatch(/[[{]\s*"/);
  });

  test('an unexpected failure is an internal error naming only a reference the log holds', async () => {
    // Reading the organisation reaches the services' stand-in, which throws UNEXPECTED.
    const answer = await send('resources/read', { uri: 'svc://org/ws_endpoint_only' });
    expect(answer.error?.code).toBe(-32603);
    const reference = /^Internal error\. Reference: ([0-9a-f-]{36})$/.exec(answer.error?.message ?? '')?.[1];
    expect(reference).toBeDefined();
    expect(JSON.stringify(answer)).not.toMatch(/ECONNREFUSED|db\.internal|password/);
    const entry = logged.find((fields) => fields.reference === reference);
    expect(entry?.err).toBe(UNEXPECTED);
  });

  test('a safe refusal of ours keeps its message', async () => {
    const answer = await send('prompts/get', { name: 'no_such_prompt' });
    expect(answer.error).toEqual({ code: -32602, message: 'Unknown prompt: no_such_prompt' });
  });
});
