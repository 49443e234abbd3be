/**
 * HTTP for tests: a fetch that resolves every `*.localhost` name to loopback (as browsers and curl do; the
 * machine's resolver does not), so tests use the platform's real host names.
 */
import dns from 'node:dns';
import { Agent, fetch as undiciFetch } from 'undici';

const agent = new Agent({
  connect: {
    lookup: (hostname, options, callback) => {
      if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
        if ((options as { all?: boolean }).all) return callback(null, [{ address: '127.0.0.1', family: 4 }] as never);
        return callback(null, '127.0.0.1', 4);
      }
      return dns.lookup(hostname, options, callback as never);
    },
  },
});

/** A WHATWG-shaped fetch usable as the `fetch` option of MCP and OAuth clients. */
export const testFetch: typeof globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) =>
  undiciFetch(input as never, { ...(init as object), dispatcher: agent } as never)) as never;

export async function closeTestFetch(): Promise<void> {
  await agent.close();
}
