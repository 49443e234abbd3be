/**
 * `fetch` that resolves every `*.localhost` name to loopback, as browsers and curl do (RFC 6761 §6.3) and
 * Node's resolver does not. Used by the CLI, so it works against a local `npm start` stack exactly as a
 * browser does; other names resolve normally.
 */
import dns from 'node:dns';
import { Agent, fetch as undiciFetch } from 'undici';

let agent: Agent | undefined;

function loopbackAgent(): Agent {
  agent ??= new Agent({
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
  return agent;
}

export const loopbackAwareFetch: typeof globalThis.fetch = (async (
  input: string | URL | Request,
  init?: RequestInit,
) => {
  const response = await undiciFetch(input as never, { ...(init as object), dispatcher: loopbackAgent() } as never);
  const nullBody = response.status === 204 || response.status === 205 || response.status === 304;
  return new Response(nullBody ? null : (response.body as never), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers as never,
  });
}) as never;

/**
 * Drops every connection at once. (A graceful `close()` would wait for responses nobody reads any more, e.g.
 * a stream a client library opened and abandoned, and keep a finished CLI command hanging.)
 */
export async function closeLoopbackAwareFetch(): Promise<void> {
  await agent?.destroy();
  agent = undefined;
}
