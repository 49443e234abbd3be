/**
 * `/healthz` and `/readyz` for load balancers and orchestrators, on the platform host and, when a port is
 * configured (`HEALTH_PORT` for the API, `WORKER_HEALTH_PORT` for the worker), on a listener of their own.
 *
 * - `/healthz`: the process is alive and its event loop turns. No I/O: restarting a process because its
 *   database is down would not bring the database back.
 * - `/readyz`: every dependency answers (`domain/platform/readiness.ts`, cached about a second); 200 when
 *   ready, 503 otherwise, with each check's status and latency. It names dependencies, never their addresses.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Readiness } from '../domain/platform/readiness.ts';

interface HealthAnswer {
  status: number;
  body: unknown;
}

async function answer(path: string, readiness: Readiness): Promise<HealthAnswer | null> {
  if (path === '/healthz') return { status: 200, body: { status: 'alive' } };
  if (path === '/readyz') {
    const report = await readiness.check();
    return { status: report.status === 'ready' ? 200 : 503, body: report };
  }
  return null;
}

/** The two endpoints inside the Koa application (the platform host); other paths fall through. */
export function healthRoutes(readiness: Readiness): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const found = await answer(ctx.path, readiness);
    if (!found) return next();
    ctx.status = found.status;
    ctx.set('cache-control', 'no-store');
    ctx.body = found.body;
  };
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/** A listener serving only the two endpoints, whatever the Host (a probe on a private port names no site). */
export async function startHealthServer(options: {
  readiness: Readiness;
  host: string;
  port: number;
}): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://health').pathname;
    const respond = ({ status, body }: HealthAnswer) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return respond({ status: 405, body: { error: 'GET only' } });
    answer(path, options.readiness).then(
      (found) => respond(found ?? { status: 404, body: { error: 'only /healthz and /readyz are served here' } }),
      () => respond({ status: 500, body: { error: 'the readiness check failed' } }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
