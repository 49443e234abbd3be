/**
 * Diagnostic preload for any benchmark process: logs its garbage-collection pauses of 25 ms or more to stderr
 * as they happen, and a summary per kind (count, total, longest, how many of 10 / 25 / 50 ms or more) at exit.
 * `NODE_OPTIONS="--import ./bench/support/gc-pauses.mjs" BENCH_HEAP_REQUESTS=0 node bench/mcp-surface.ts`
 * loads it into the bench and into the server it starts (docs/benchmarks.md, "Garbage-collection pauses").
 */
import path from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';

const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};
const script = process.argv[1] ? path.basename(process.argv[1]) : '?';
const stats = {};

new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = KINDS[entry.detail?.kind] ?? String(entry.detail?.kind);
    const s = (stats[kind] ??= { n: 0, total: 0, max: 0, over10: 0, over25: 0, over50: 0 });
    s.n += 1;
    s.total += entry.duration;
    s.max = Math.max(s.max, entry.duration);
    if (entry.duration >= 10) s.over10 += 1;
    if (entry.duration >= 25) s.over25 += 1;
    if (entry.duration >= 50) s.over50 += 1;
    if (entry.duration >= 25) {
      process.stderr.write(
        `[gc ${script} ${process.pid}] ${new Date().toISOString()} ${kind} ${entry.duration.toFixed(1)} ms\n`,
      );
    }
  }
}).observe({ entryTypes: ['gc'] });

function report() {
  const rounded = Object.entries(stats).map(([kind, s]) => [
    kind,
    { ...s, total: Math.round(s.total), max: Math.round(s.max) },
  ]);
  process.stderr.write(`[gc-summary ${script} ${process.pid}] ${JSON.stringify(Object.fromEntries(rounded))}\n`);
}
process.on('exit', report);
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    report();
    process.exit(0);
  });
}
