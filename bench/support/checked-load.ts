/**
 * Load generation with autocannon where every response is checked, not just counted: a fast benchmark of
 * error answers would be a lie. Each request can be built per call (rotating keys, a fresh JSON-RPC id) and
 * carries what its answer must show; each 2xx answer is checked against it. Non-2xx answers and socket errors
 * are counted by autocannon as usual.
 */
import http from 'node:http';
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

export interface PacedLoadOptions<Expectation> {
  label: string;
  url: string;
  /** Keep-alive connections to spread the requests over (at most this many in flight). */
  connections: number;
  /** Arrivals per second, evenly spaced. */
  rate: number;
  durationSeconds: number;
  method?: 'GET' | 'POST';
  prepare(n: number): PreparedRequest<Expectation>;
  check(body: string, expected: Expectation): string | null;
}

/**
 * Open-loop load at a fixed arrival rate: request n is due at n / rate seconds, whatever the answers before it
 * did, and its latency counts from when it was due (so time spent waiting for a free connection counts, as it
 * would for a client: no coordinated omission).
 *
 * Why not autocannon's `overallRate`: it gives each connection a budget per second and lets it spend it
 * back-to-back from the start of every second (lib/httpClient.js, `reqsMadeThisSecond`), so 50 connections at
 * "50% of the maximum" send a synchronised burst at full speed each second and then idle; its latencies are
 * those of a saturated server for half of every second.
 */
export async function pacedLoad<Expectation>(options: PacedLoadOptions<Expectation>): Promise<CheckedLoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const total = Math.max(1, Math.round(options.rate * options.durationSeconds));
  const latencies: number[] = [];
  let [errors, non2xx, invalid] = [0, 0, 0];
  const invalidReasons: string[] = [];
  const started = performance.now();
  const send = (n: number, due: number) =>
    new Promise<void>((resolve) => {
      const prepared = options.prepare(n);
      const request = http.request(
        options.url,
        {
          agent,
          method: options.method ?? 'POST',
          headers: {
            ...prepared.headers,
            ...(prepared.body ? { 'content-length': String(Buffer.byteLength(prepared.body)) } : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            latencies.push(performance.now() - due);
            const status = response.statusCode ?? 0;
            if (status < 200 || status >= 300) non2xx += 1;
            else {
              const reason = options.check(Buffer.concat(chunks).toString('utf8'), prepared.expect);
              if (reason !== null) {
                invalid += 1;
                if (invalidReasons.length < 3) invalidReasons.push(reason);
              }
            }
            resolve();
          });
        },
      );
      request.on('error', () => {
        errors += 1;
        resolve();
      });
      request.end(prepared.body);
    });
  const inFlight: Promise<void>[] = [];
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      // Send every request that is due (a late timer catches up), then sleep until the next one is.
      const now = performance.now();
      while (next < total && started + (next * 1000) / options.rate <= now) {
        inFlight.push(send(next, started + (next * 1000) / options.rate));
        next += 1;
      }
      if (next >= total) return resolve();
      setTimeout(tick, Math.max(0, started + (next * 1000) / options.rate - performance.now()));
    };
    tick();
  });
  await Promise.all(inFlight);
  const durationSeconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  // Tenths of a millisecond: the targets below saturation are a few milliseconds.
  const tenths = (ms: number) => Math.round(ms * 10) / 10;
  const at = (q: number) => tenths(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return {
    label: options.label,
    requestsPerSecond: latencies.length / durationSeconds,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: tenths(latencies.at(-1) ?? 0),
    errors,
    non2xx,
    total: latencies.length,
    invalid,
    invalidReasons,
    durationSeconds,
  };
}
