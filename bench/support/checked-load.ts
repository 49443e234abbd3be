/**
 * Load generation with autocannon where every response is checked, not just counted: a fast benchmark of
 * error answers would be a lie. Each request can be built per call (rotating keys, a fresh JSON-RPC id) and
 * carries what its answer must show; each 2xx answer is checked against it. Non-2xx answers and socket errors
 * are counted by autocannon as usual.
 */
import autocannon from 'autocannon';
import type { LoadResult } from './load.ts';

export interface PreparedRequest<Expectation> {
  headers: Record<string, string>;
  body?: string;
  /** Handed to `check` with this request's answer. */
  expect: Expectation;
}

export interface CheckedLoadOptions<Expectation> {
  label: string;
  url: string;
  connections: number;
  /** Run for this long… */
  durationSeconds?: number;
  /** …or until this many answers came back (takes precedence). */
  amount?: number;
  method?: 'GET' | 'POST';
  /**
   * Requests per second across all connections (autocannon's `overallRate`), for latency below saturation: a
   * fixed arrival rate instead of as fast as the server answers. Unset: as fast as possible.
   */
  overallRate?: number;
  /** Builds request number `n` (counted across all connections from 0). */
  prepare(n: number): PreparedRequest<Expectation>;
  /** Returns why a 2xx answer is wrong, or null when it is right. */
  check(body: string, expected: Expectation): string | null;
}

export interface CheckedLoadResult extends LoadResult {
  /** 2xx answers whose body failed the check. */
  invalid: number;
  /** Up to three reasons, for the report. */
  invalidReasons: string[];
  durationSeconds: number;
  p90: number;
  /** The slowest answer, ms. */
  max: number;
}

export async function checkedLoad<Expectation>(options: CheckedLoadOptions<Expectation>): Promise<CheckedLoadResult> {
  let sent = 0;
  let invalid = 0;
  const invalidReasons: string[] = [];
  // autocannon keeps one context per connection; with one request in the list it is reset before each
  // request is set up, and a connection has one request in flight (no pipelining), so the context carries
  // exactly this request's expectation to its answer.
  type Context = { expect?: Expectation };
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    pipelining: 1,
    ...(options.amount ? { amount: options.amount } : { duration: options.durationSeconds ?? 10 }),
    method: options.method ?? 'POST',
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    requests: [
      {
        setupRequest: (request: autocannon.Request, context: object) => {
          const prepared = options.prepare(sent++);
          (context as Context).expect = prepared.expect;
          return { ...request, headers: prepared.headers, ...(prepared.body ? { body: prepared.body } : {}) };
        },
        onResponse: (status: number, body: string, context: object) => {
          if (status < 200 || status >= 300) return;
          const reason = options.check(body, (context as Context).expect as Expectation);
          if (reason === null) return;
          invalid += 1;
          if (invalidReasons.length < 3) invalidReasons.push(reason);
        },
      },
    ],
  });
  return {
    label: options.label,
    requestsPerSecond: result.requests.total / result.duration,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total: result.requests.total,
    invalid,
    invalidReasons,
    durationSeconds: result.duration,
  };
}
