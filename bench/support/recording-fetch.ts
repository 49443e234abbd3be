/**
 * A fetch for a real MCP client that records the JSON-RPC requests it sends, so a benchmark can replay the very
 * bytes a real client sends (headers minus credentials and transport ones, and body) under load.
 */
import { loopbackAwareFetch } from '../../src/net/loopback-aware-fetch.ts';

/** One MCP request as the SDK client sent it: its headers (minus credentials and transport ones) and body. */
export interface RecordedRequest {
  headers: Record<string, string>;
  body: { jsonrpc: '2.0'; id: number | string; method: string; params?: unknown };
}

/** A fetch that records every JSON-RPC request it sends, by method. */
export function recordingFetch(recorded: Map<string, RecordedRequest>): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const text = await request.clone().text();
    if (text) {
      const body = JSON.parse(text) as RecordedRequest['body'];
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        if (!['x-api-key', 'authorization', 'content-length', 'host'].includes(name)) headers[name] = value;
      });
      if (body.method) recorded.set(body.method, { headers, body });
    }
    return loopbackAwareFetch(input, init);
  }) as typeof fetch;
}
