/**
 * Where Prometheus reads a process's registry. Never open to the public by default:
 *
 * - `METRICS_PORT` (recommended in production): a listener of its own on `METRICS_HOST`, answering
 *   `GET /metrics` only, meant for a private network that the public proxy does not route to;
 * - `METRICS_TOKEN`: the API also answers `GET /metrics` on the platform host, to a bearer of that token
 *   (routes/metrics.ts). With the token set, the separate listener asks for it too.
 *
 * With neither set, no `/metrics` exists.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.ts';

/** Whether an `Authorization` header carries `token` (compared in constant time; no token set: no check). */
export function metricsRequestAuthorized(authorization: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const match = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '');
  if (!match) return false;
  // Hashes are compared, so the comparison takes the same time whatever the presented length.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(match[1]!), digest(token));
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Serves `scrape()` at `GET /metrics` on a listener of its own. */
export async function startMetricsServer(options: {
  host: string;
  port: number;
  token: string | undefined;
  scrape(): Promise<{ contentType: string; body: string }>;
  log: Logger;
}): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Not found: this listener serves /metrics only\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
        .end('Method not allowed\n');
      return;
    }
    if (!metricsRequestAuthorized(req.headers.authorization, options.token)) {
      res
        .writeHead(401, { 'www-authenticate': 'Bearer realm="metrics"', 'content-type': 'text/plain; charset=utf-8' })
        .end('Send Authorization: Bearer <METRICS_TOKEN>\n');
      return;
    }
    options.scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        options.log.error({ err: error }, 'collecting metrics failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Collecting metrics failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
