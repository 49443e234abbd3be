/**
 * Benchmark: brand page and markdown-twin serving against a bare Koa route answering the same bytes from
 * memory, measured in the same run (`npm run bench:site`). Target: at least 50% of the baseline's throughput.
 *
 * Visitors rotate through 1,000 anonymous ids (cookies), so variant choice and assembly run per request as
 * in production; markdown requests also record their server-side impression.
 */
import { freePort, startBenchStack } from './support/stack.ts';
import { load, report, type LoadResult } from './support/load.ts';
import { startServerProcess } from './support/server-process.ts';

interface Info {
  bare: number;
  app: number;
  host: string;
  campaignPath: string;
  bytes: number;
}

const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const duration = Number(process.env.BENCH_SECONDS ?? 10);
const stack = await startBenchStack('site');
let server: Awaited<ReturnType<typeof startServerProcess<Info>>> | undefined;
try {
  server = await startServerProcess<Info>('bench/servers/brand-site-server.ts', {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    HTTP_PORT: String(await freePort()),
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    DATABASE_POOL_MAX: '20',
  });
  const { bare, app, host, campaignPath, bytes } = server.info;
  const visitors = Array.from({ length: 1000 }, (_, i) => `cp_vid=${String(i).padStart(22, 'v')}`);
  let next = 0;
  const asVisitor = (accept: string) => (request: { headers?: Record<string, string> }) => ({
    ...request,
    headers: { ...request.headers, host, accept, cookie: visitors[next++ % visitors.length]! },
  });
  const cases = [
    { label: `campaign page, HTML (${bytes} B)`, path: campaignPath, accept: 'text/html' },
    { label: 'campaign page, markdown twin', path: campaignPath, accept: 'text/markdown' },
    { label: 'surface page with a zone, HTML', path: '/summer', accept: 'text/html' },
    { label: 'llms.txt (file)', path: '/llms.txt', accept: 'text/plain' },
  ];
  // Warm up (JIT, caches, connection pools).
  await load({ label: 'warm-up', url: `http://127.0.0.1:${bare}/`, connections, durationSeconds: 2 });
  for (const c of cases) {
    await load({
      label: 'warm-up',
      url: `http://127.0.0.1:${app}${c.path}`,
      connections,
      durationSeconds: 2,
      setupRequest: asVisitor(c.accept),
    });
  }
  const baseline = await load({
    label: 'bare Koa route, same bytes from memory',
    url: `http://127.0.0.1:${bare}/`,
    connections,
    durationSeconds: duration,
  });
  const measured: LoadResult[] = [];
  for (const c of cases) {
    measured.push(
      await load({
        label: c.label,
        url: `http://127.0.0.1:${app}${c.path}`,
        connections,
        durationSeconds: duration,
        setupRequest: asVisitor(c.accept),
      }),
    );
  }
  report(`Brand-site serving, ${connections} connections, ${duration} s each`, baseline, measured);
  for (const result of measured) {
    const ratio = result.requestsPerSecond / baseline.requestsPerSecond;
    const clean = result.errors === 0 && result.non2xx === 0;
    console.log(
      `${ratio >= 0.5 && clean ? 'PASS' : 'FAIL'} ${result.label}: ${(ratio * 100).toFixed(1)}% of baseline (target ≥ 50%)${clean ? '' : `, ${result.errors} errors, ${result.non2xx} non-2xx`}`,
    );
  }
} finally {
  await server?.stop();
  await stack.stop();
}
