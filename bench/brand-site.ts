/**
 * Benchmark: brand page and markdown-twin serving against a bare Koa route answering the same bytes from
 * memory, measured in the same run (`npm run bench:site`). Target: at least 50% of the baseline's throughput.
 *
 * Visitors rotate through 1,000 anonymous ids (cookies), so variant choice and assembly run per request as
 * in production; markdown requests also record their server-side impression. The baseline receives the same
 * requests (it ignores the cookie), so the load generator's work is the same on both sides of each ratio.
 *
 * BENCH_ONLY=<text> runs only the cases whose label contains it (e.g. `markdown`). BENCH_PROFILE=1 then
 * records a CPU profile of the app serving the first such case (the markdown twin when BENCH_ONLY is unset)
 * and prints where its time went (the file stays in .data/bench).
 */
import path from 'node:path';
import { freePort, startBenchStack } from './support/stack.ts';
import { load, report } from './support/load.ts';
import { printCpuProfile } from './support/cpu-profile-summary.ts';
import { startServerProcess } from './support/server-process.ts';

interface Info {
  bare: number;
  app: number;
  host: string;
  campaignPath: string;
  bytes: Record<string, number>;
}

const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const duration = Number(process.env.BENCH_SECONDS ?? 10);
const profileFile =
  process.env.BENCH_PROFILE === '1' ? path.resolve('.data/bench', `brand-site-${Date.now()}.cpuprofile`) : '';
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
    ...(profileFile ? { BENCH_PROFILE_FILE: profileFile } : {}),
  });
  const { bare, app, host, campaignPath, bytes } = server.info;
  const visitors = Array.from({ length: 1000 }, (_, i) => `cp_vid=${String(i).padStart(22, 'v')}`);
  let next = 0;
  const asVisitor = (accept: string) => (request: { headers?: Record<string, string> }) => ({
    ...request,
    headers: { ...request.headers, host, accept, cookie: visitors[next++ % visitors.length]! },
  });
  const cases = [
    { label: 'campaign page, HTML', path: campaignPath, accept: 'text/html' },
    { label: 'campaign page, markdown twin', path: campaignPath, accept: 'text/markdown' },
    { label: 'surface page with a zone, HTML', path: '/summer', accept: 'text/html' },
    { label: 'llms.txt (stored file)', path: '/llms.txt', accept: 'text/html' },
  ];
  const verdicts: string[] = [];
  const only = process.env.BENCH_ONLY;
  for (const c of cases.filter((x) => !only || x.label.includes(only))) {
    const size = bytes[`${c.path} ${c.accept}`];
    // Warm up both servers on this case (JIT, caches, connection pools), then measure one after the other.
    // Both get the very same requests (host, Accept, rotating visitor cookie): the load generator shares
    // the machine, so its per-request work must be the same on both sides of the ratio.
    const bareOptions = { url: `http://127.0.0.1:${bare}${c.path}`, connections, setupRequest: asVisitor(c.accept) };
    const appOptions = {
      url: `http://127.0.0.1:${app}${c.path}`,
      connections,
      setupRequest: asVisitor(c.accept),
    };
    await load({ label: 'warm-up', ...bareOptions, durationSeconds: 2 });
    await load({ label: 'warm-up', ...appOptions, durationSeconds: 2 });
    const baseline = await load({
      label: `bare Koa, same ${size} B from memory`,
      ...bareOptions,
      durationSeconds: duration,
    });
    const measured = await load({ label: `${c.label} (app)`, ...appOptions, durationSeconds: duration });
    report(`${c.label}: ${connections} connections, ${duration} s each`, baseline, [measured]);
    const ratio = measured.requestsPerSecond / baseline.requestsPerSecond;
    const clean = measured.errors === 0 && measured.non2xx === 0 && baseline.non2xx === 0;
    verdicts.push(
      `${ratio >= 0.5 && clean ? 'PASS' : 'FAIL'} ${c.label}: ${(ratio * 100).toFixed(1)}% of its baseline (target ≥ 50%)${clean ? '' : `, ${measured.errors} errors, ${measured.non2xx} non-2xx`}`,
    );
  }
  console.log(`\n${verdicts.join('\n')}`);

  if (profileFile) {
    const profiled = cases.find((c) => (only ? c.label.includes(only) : c.accept === 'text/markdown'))!;
    const started = server.nextLine('{"profiling":true');
    server.child.kill('SIGUSR2');
    await started;
    const run = await load({
      label: profiled.label,
      url: `http://127.0.0.1:${app}${profiled.path}`,
      connections,
      setupRequest: asVisitor(profiled.accept),
      durationSeconds: duration,
    });
    const written = server.nextLine('{"profiled":');
    server.child.kill('SIGUSR2');
    await written;
    await printCpuProfile(
      profileFile,
      run.total,
      `CPU profile of the app during ${run.total} × ${profiled.label} (${Math.round(run.requestsPerSecond)} req/s)`,
    );
  }
} finally {
  await server?.stop();
  await stack.stop();
}
