/**
 * Readiness (`/readyz`): whether this process can do its work now, that is whether every dependency it needs
 * answers. Load balancers ask every second or so, from several places at once, so:
 *
 * - the report is cached for `cacheMs` (one round of probes serves every caller within it);
 * - each probe is bounded by `timeoutMs` (a hung dependency reports "timed out", it never hangs the caller);
 * - a probe still running from an earlier round is awaited again rather than started twice, so an unreachable
 *   PostgreSQL holds at most one pool connection, not one per second.
 *
 * The API checks PostgreSQL, Temporal and the media store; the worker checks the same plus its own poller.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { MediaStore } from '../media/media-store.ts';
import { probe, type DependencyHealth } from './health.service.ts';

export interface ReadinessReport {
  status: 'ready' | 'unready';
  /** One entry per dependency, named for operators: `postgres`, `temporal`, `media`, `worker`. */
  checks: Record<string, Omit<DependencyHealth, 'version'>>;
  checkedAt: string;
}

/** A probe: resolves when the dependency answered, rejects (or never settles) when it did not. */
export type ReadinessCheck = () => Promise<unknown>;

export interface Readiness {
  check(): Promise<ReadinessReport>;
}

/** What a readiness probe needs of a Temporal connection: the client's and the worker's both have it. */
export interface TemporalProbeConnection {
  withDeadline<T>(deadline: number, fn: () => Promise<T>): Promise<T>;
  workflowService: { getSystemInfo(request: object): Promise<unknown> };
}

export const READINESS_TIMEOUT_MS = 1_000;
export const READINESS_CACHE_MS = 1_000;

/** The probes every process of the platform shares: PostgreSQL, Temporal, the media store. */
export function dependencyChecks(deps: {
  orm: MikroORM;
  temporal: TemporalProbeConnection;
  media: Pick<MediaStore, 'checkReachable'>;
  timeoutMs?: number;
}): Record<string, ReadinessCheck> {
  const timeoutMs = deps.timeoutMs ?? READINESS_TIMEOUT_MS;
  return {
    postgres: () => deps.orm.em.fork().getConnection().execute('select 1'),
    // The gRPC deadline ends the call (and its retries) on the server side too, not only our wait.
    temporal: () =>
      deps.temporal.withDeadline(Date.now() + timeoutMs, () => deps.temporal.workflowService.getSystemInfo({})),
    media: () => deps.media.checkReachable(),
  };
}

export function createReadiness(
  checks: Record<string, ReadinessCheck>,
  options: { timeoutMs?: number; cacheMs?: number } = {},
): Readiness {
  const timeoutMs = options.timeoutMs ?? READINESS_TIMEOUT_MS;
  const cacheMs = options.cacheMs ?? READINESS_CACHE_MS;
  const running = new Map<string, Promise<unknown>>();
  const once = (name: string, check: ReadinessCheck): Promise<unknown> => {
    let pending = running.get(name);
    if (!pending) {
      pending = check().finally(() => running.delete(name));
      running.set(name, pending);
    }
    return pending;
  };
  let cached: { at: number; report: Promise<ReadinessReport> } | null = null;

  const measure = async (): Promise<ReadinessReport> => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        const { version: _version, ...health } = await probe(async () => {
          await once(name, check);
          return null;
        }, timeoutMs);
        return [name, health] as const;
      }),
    );
    return {
      status: results.every(([, health]) => health.status === 'up') ? 'ready' : 'unready',
      checks: Object.fromEntries(results),
      checkedAt: new Date().toISOString(),
    };
  };

  return {
    check() {
      const now = performance.now();
      if (!cached || now - cached.at >= cacheMs) cached = { at: now, report: measure() };
      return cached.report;
    },
  };
}
