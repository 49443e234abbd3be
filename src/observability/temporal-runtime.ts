/**
 * The Temporal SDK's runtime of a worker process, installed once before the first worker or native
 * connection: its log level and, with `WORKER_METRICS_PORT` set, the SDK core's own Prometheus exporter
 * (workflow and activity task latencies, task slots, polls, sticky cache; all `temporal_*`), served by the core
 * on that port at `/metrics`. The platform's own worker metrics are a separate registry on
 * `WORKER_APP_METRICS_PORT` (docs/metrics.md says why two).
 */
import { DefaultLogger, Runtime, type RuntimeOptions } from '@temporalio/worker';
import type { Config } from '../config.ts';

/** `host:port` as the core binds it (an IPv6 address in brackets). */
export function bindAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function workerRuntimeOptions(config: Config, logLevel: 'WARN' | 'ERROR' = 'WARN'): RuntimeOptions {
  const port = config.metrics.workerSdkPort;
  return {
    logger: new DefaultLogger(logLevel),
    ...(port
      ? {
          telemetryOptions: {
            metrics: {
              prometheus: {
                bindAddress: bindAddress(config.metrics.host, port),
                // Prometheus' own conventions: counters end in _total, durations are seconds.
                countersTotalSuffix: true,
                useSecondsForDurations: true,
              },
            },
          },
        }
      : {}),
  };
}

export function installWorkerRuntime(config: Config, logLevel: 'WARN' | 'ERROR' = 'WARN'): void {
  Runtime.install(workerRuntimeOptions(config, logLevel));
}
