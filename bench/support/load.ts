/**
 * Load generation with autocannon, and the report format every benchmark prints: requests per second,
 * latency percentiles, errors, and the ratio against a baseline measured in the same run (this machine is
 * shared and noisy, so absolute numbers only mean something next to their baseline).
 */
import autocannon from 'autocannon';

export interface LoadResult {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
}

export interface LoadOptions {
  label: string;
  url: string;
  connections: number;
  durationSeconds: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Varies each request (e.g. rotating API keys). */
  setupRequest?: (request: { headers?: Record<string, string> }) => { headers?: Record<string, string> };
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    ...(options.setupRequest ? { requests: [{ setupRequest: options.setupRequest as never }] } : {}),
  });
  return {
    label: options.label,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

export function report(title: string, baseline: LoadResult, measured: LoadResult[]): void {
  const rows = [baseline, ...measured].map((r) => ({
    case: r.label,
    'req/s': Math.round(r.requestsPerSecond),
    'p50 ms': r.p50,
    'p99 ms': r.p99,
    errors: r.errors,
    'non-2xx': r.non2xx,
    'vs baseline': `${((r.requestsPerSecond / baseline.requestsPerSecond) * 100).toFixed(1)}%`,
  }));
  console.log(`\n${title}`);
  console.table(rows);
}
