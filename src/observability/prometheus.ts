/**
 * The `Metrics` port on prom-client: one Registry per process (the API's container, the worker), never the
 * library's global one, so two containers in one test process never mix their counts. Every family is
 * listed in docs/metrics.md with its labels and what to alert on; the label values are bounded where they
 * are recorded (see metrics.ts).
 *
 * Gauges that describe a state rather than count events — the PostgreSQL pool and the analytics rollup's
 * lag — are read when Prometheus scrapes, so they are true at that moment and cost nothing in between.
 */
import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from '../logger.ts';
import type { Metrics } from './metrics.ts';

/** Every family of ours starts with this (the Node runtime's standard names keep theirs). */
export const METRIC_PREFIX = 'cp_';

/** Request and tool-call latencies: 5 ms to 10 s. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Job durations: a selftest takes seconds, a film hours (its approvals wait for people). */
const JOB_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 24 * 3600];

export interface PrometheusMetricsOptions {
  /** The process's PostgreSQL pool (size, idle and waiting connections at scrape time). */
  pool?: pg.Pool;
  /** Seconds the analytics rollup is behind (the API reads it at scrape time; the worker does not). */
  rollupLagSeconds?: () => Promise<number>;
  log?: Logger;
}

export interface PrometheusMetrics extends Metrics {
  registry: Registry;
  /** The registry in the Prometheus text format, with its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

/** How long a scrape waits for the rollup-lag query before leaving that gauge out of this scrape. */
const LAG_QUERY_TIMEOUT_MS = 2000;

export function createPrometheusMetrics(options: PrometheusMetricsOptions = {}): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const name = (suffix: string) => `${METRIC_PREFIX}${suffix}`;
  const registers = [registry];

  const httpRequests = new Counter({
    name: name('http_requests_total'),
    help: 'HTTP requests answered, by site kind, route pattern, method and status.',
    labelNames: ['host', 'route', 'method', 'status'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: name('http_request_duration_seconds'),
    help: 'Time to answer an HTTP request (until the handler finished), by site kind, route pattern and method.',
    labelNames: ['host', 'route', 'method'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const toolCalls = new Counter({
    name: name('mcp_tool_calls_total'),
    help: 'MCP tools/call requests, by tool, action, protocol era and outcome (ok or the error code).',
    labelNames: ['tool', 'action', 'era', 'outcome'] as const,
    registers,
  });
  const toolDuration = new Histogram({
    name: name('mcp_tool_call_duration_seconds'),
    help: 'Time a tools/call spent in the tool wrapper, by tool and action.',
    labelNames: ['tool', 'action'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const rateLimited = new Counter({
    name: name('rate_limited_total'),
    help: 'Requests refused by a rate-limit policy, by policy.',
    labelNames: ['policy'] as const,
    registers,
  });
  const authFailures = new Counter({
    name: name('auth_failures_total'),
    help: 'Tool-server credentials refused, by reason.',
    labelNames: ['reason'] as const,
    registers,
  });
  const jobsStarted = new Counter({
    name: name('jobs_started_total'),
    help: 'Jobs whose workflow was started, by kind.',
    labelNames: ['kind'] as const,
    registers,
  });
  const jobsFinished = new Counter({
    name: name('jobs_finished_total'),
    help: 'Jobs that reached a terminal status, by kind and outcome (succeeded, failed, cancelled).',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  });
  const jobDuration = new Histogram({
    name: name('job_duration_seconds'),
    help: 'Seconds from a job’s creation to its terminal status, by kind and outcome.',
    labelNames: ['kind', 'outcome'] as const,
    buckets: JOB_BUCKETS,
    registers,
  });
  const creditPostings = new Counter({
    name: name('credit_postings_total'),
    help: 'Credit ledger entries written, by kind (grant, reserve, capture, release, spend, revoke).',
    labelNames: ['kind'] as const,
    registers,
  });
  const creditsPosted = new Counter({
    name: name('credits_posted_total'),
    help: 'Credits moved by the ledger entries written, by kind.',
    labelNames: ['kind'] as const,
    registers,
  });
  const analyticsAccepted = new Counter({
    name: name('analytics_events_accepted_total'),
    help: 'Analytics events written, by source (beacon, server_conversion, served); duplicates are not counted.',
    labelNames: ['source'] as const,
    registers,
  });
  const analyticsRejected = new Counter({
    name: name('analytics_events_rejected_total'),
    help: 'Analytics events refused at ingestion as invalid, by source.',
    labelNames: ['source'] as const,
    registers,
  });
  const channelPosts = new Counter({
    name: name('channel_posts_total'),
    help: 'Social post publishing attempts and final states, by network and outcome.',
    labelNames: ['network', 'outcome'] as const,
    registers,
  });

  const { pool } = options;
  if (pool) {
    new Gauge({
      name: name('db_pool_connections'),
      help: 'PostgreSQL connections open in this process’s pool.',
      registers,
      collect() {
        this.set(pool.totalCount);
      },
    });
    new Gauge({
      name: name('db_pool_idle_connections'),
      help: 'PostgreSQL connections idle in this process’s pool.',
      registers,
      collect() {
        this.set(pool.idleCount);
      },
    });
    new Gauge({
      name: name('db_pool_waiting_requests'),
      help: 'Queries waiting for a PostgreSQL connection in this process’s pool.',
      registers,
      collect() {
        this.set(pool.waitingCount);
      },
    });
    new Gauge({
      name: name('db_pool_max_connections'),
      help: 'The pool’s upper bound (DATABASE_POOL_MAX).',
      registers,
      collect() {
        this.set((pool.options as { max?: number }).max ?? 0);
      },
    });
  }

  const { rollupLagSeconds } = options;
  if (rollupLagSeconds) {
    new Gauge({
      name: name('analytics_rollup_lag_seconds'),
      help: 'Age of the oldest analytics event not yet folded into the rollups (0 when caught up).',
      registers,
      async collect() {
        // A scrape must answer even when PostgreSQL does not: the gauge is then left out of this scrape.
        let timer: NodeJS.Timeout | undefined;
        try {
          const lag = await Promise.race([
            rollupLagSeconds(),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error('the rollup lag query timed out')), LAG_QUERY_TIMEOUT_MS);
            }),
          ]);
          this.set(lag);
        } catch (error) {
          this.reset();
          options.log?.warn({ err: error }, 'could not read the analytics rollup lag for /metrics');
        } finally {
          clearTimeout(timer);
        }
      },
    });
  }

  return {
    registry,
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    httpRequest(record) {
      httpRequests.inc({ host: record.host, route: record.route, method: record.method, status: record.status });
      httpDuration.observe({ host: record.host, route: record.route, method: record.method }, record.seconds);
    },
    toolCall(record) {
      toolCalls.inc({ tool: record.tool, action: record.action, era: record.era, outcome: record.outcome });
      toolDuration.observe({ tool: record.tool, action: record.action }, record.seconds);
    },
    rateLimited(policy) {
      rateLimited.inc({ policy });
    },
    authFailure(reason) {
      authFailures.inc({ reason });
    },
    jobStarted(kind) {
      jobsStarted.inc({ kind });
    },
    jobFinished(kind, outcome, seconds) {
      jobsFinished.inc({ kind, outcome });
      if (seconds !== null) jobDuration.observe({ kind, outcome }, seconds);
    },
    creditPosted(kind, amount) {
      creditPostings.inc({ kind });
      creditsPosted.inc({ kind }, amount);
    },
    analyticsAccepted(source, count) {
      if (count > 0) analyticsAccepted.inc({ source }, count);
    },
    analyticsRejected(source, count) {
      if (count > 0) analyticsRejected.inc({ source }, count);
    },
    channelPost(network, outcome) {
      channelPosts.inc({ network, outcome });
    },
  };
}
