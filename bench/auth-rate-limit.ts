/**
 * Benchmark: the tool server's authenticate + rate-limit path against a bare Koa JSON route, measured in the
 * same run on the same machine (`npm run bench:auth`).
 *
 * The limit is raised for the run (RATE_LIMIT_PER_MINUTE) so every request does the full work — API key
 * lookup and the PostgreSQL sliding-log upsert — instead of being refused early; 200 keys rotate so the limiter
 * works on many rows, as in production, not one hot row.
 */
import { freePort, startBenchStack } from './support/stack.ts';
import { load, report } from './support/load.ts';
import { startServerProcess } from './support/server-process.ts';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const duration = Number(process.env.BENCH_SECONDS ?? 10);
const stack = await startBenchStack('auth');
let server:
  Awaited<ReturnType<typeof startServerProcess<{ bare: number; guarded: number; keys: string[] }>>> | undefined;
try {
  server = await startServerProcess<{ bare: number; guarded: number; keys: string[] }>('bench/servers/auth-server.ts', {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    HTTP_PORT: String(await freePort()),
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    RATE_LIMIT_PER_MINUTE: '100000',
    DATABASE_POOL_MAX: '20',
  });
  const { bare, guarded, keys } = server.info;
  let next = 0;
  // Warm up both paths (JIT, connection pools) before measuring.
  await load({ label: 'warm-up', url: `http://127.0.0.1:${bare}/`, connections, durationSeconds: 2 });
  await load({
    label: 'warm-up',
    url: `http://127.0.0.1:${guarded}/`,
    connections,
    durationSeconds: 2,
    setupRequest: (r) => ({ ...r, headers: { 'x-api-key': keys[next++ % keys.length]! } }),
  });
  const baseline = await load({
    label: 'bare Koa JSON route',
    url: `http://127.0.0.1:${bare}/`,
    connections,
    durationSeconds: duration,
  });
  const guardedResult = await load({
    label: 'authenticate (API key) + rate limit (PostgreSQL sliding log)',
    url: `http://127.0.0.1:${guarded}/`,
    connections,
    durationSeconds: duration,
    setupRequest: (r) => ({ ...r, headers: { 'x-api-key': keys[next++ % keys.length]! } }),
  });
  report(`authenticate + rate-limit path, ${connections} connections, ${duration} s each`, baseline, [guardedResult]);
} finally {
  await server?.stop();
  await stack.stop();
}
