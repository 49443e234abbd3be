/**
 * Reachability of the platform's dependencies, for `get_platform_info topic=health`; `/readyz` asks the same
 * probes through `readiness.ts`. Each probe is bounded by a timeout so a hung dependency reports "down" instead
 * of hanging the caller.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Connection } from '@temporalio/client';
import { PLATFORM_VERSION } from '../../version.ts';

export interface DependencyHealth {
  status: 'up' | 'down';
  latencyMs: number;
  /** The dependency's server version; absent in `withoutVersions` reports. */
  version?: string | null;
  error?: string;
}

export interface HealthReport {
  status: 'ok' | 'degraded';
  /** Ours, and public anyway (the MCP `serverInfo` carries it). */
  platformVersion: string;
  /** The Node.js version; absent in `withoutVersions` reports. */
  nodeVersion?: string;
  database: DependencyHealth;
  temporal: DependencyHealth & { namespace: string };
  checkedAt: string;
}

/**
 * The report without third-party software versions (Node.js, PostgreSQL, Temporal server), for callers not
 * allowed to see them (`platform:versions`): a version tells its reader which known vulnerabilities to try.
 * Status and latency stay.
 */
export function withoutVersions(report: HealthReport): HealthReport {
  const { nodeVersion: _node, ...rest } = report;
  const strip = <D extends DependencyHealth>({ version: _version, ...dependency }: D) => dependency;
  return { ...rest, database: strip(report.database), temporal: strip(report.temporal) };
}

const PROBE_TIMEOUT_MS = 2_000;

export async function probe(
  run: () => Promise<string | null>,
  timeoutMs: number = PROBE_TIMEOUT_MS,
): Promise<DependencyHealth> {
  const started = performance.now();
  try {
    const version = await Promise.race([
      run(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out')), timeoutMs).unref()),
    ]);
    return { status: 'up', latencyMs: Math.round(performance.now() - started), version };
  } catch (error) {
    return {
      status: 'down',
      latencyMs: Math.round(performance.now() - started),
      version: null,
      // Only the class of failure: connection strings and hostnames stay out of tool results.
      error: error instanceof Error && error.message === 'timed out' ? 'timed out' : 'unreachable',
    };
  }
}

export function createHealthService(deps: { orm: MikroORM; temporal: Connection; namespace: string }) {
  return {
    async check(): Promise<HealthReport> {
      const [database, temporal] = await Promise.all([
        probe(async () => {
          const rows = await deps.orm.em
            .fork()
            .getConnection()
            .execute<{ server_version: string }[]>('show server_version');
          return rows[0]?.server_version ?? null;
        }),
        probe(async () => {
          const info = await deps.temporal.workflowService.getSystemInfo({});
          return info.serverVersion ?? null;
        }),
      ]);
      return {
        status: database.status === 'up' && temporal.status === 'up' ? 'ok' : 'degraded',
        platformVersion: PLATFORM_VERSION,
        nodeVersion: process.version,
        database,
        temporal: { ...temporal, namespace: deps.namespace },
        checkedAt: new Date().toISOString(),
      };
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
