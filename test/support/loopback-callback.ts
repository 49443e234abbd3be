/** A loopback redirect receiver, like the one a native OAuth client (or an MCP client) runs. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CallbackServer {
  redirectUri: string;
  /** Resolves with the full callback URL of the next redirect that arrives. */
  next(): Promise<URL>;
  close(): Promise<void>;
}

export async function startCallbackServer(host = '127.0.0.1', pathName = '/callback'): Promise<CallbackServer> {
  let waiting: ((url: URL) => void) | null = null;
  const received: URL[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.pathname !== pathName) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Done. You can close this window.</p>');
    if (waiting) {
      const resolve = waiting;
      waiting = null;
      resolve(url);
    } else {
      received.push(url);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://${host === '127.0.0.1' ? '127.0.0.1' : host}:${port}${pathName}`,
    next: () => {
      const queued = received.shift();
      if (queued) return Promise.resolve(queued);
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
