/**
 * The Temporal worker process: runs every workflow and activity of the platform.
 *
 * Workflows are bundled from source (`workflows/index.ts`) in development and tests, or loaded from a bundle
 * prebuilt by `npm run build` in production (`WORKFLOW_BUNDLE_PATH`), so production never runs webpack at boot.
 * SIGINT/SIGTERM drain: in-flight activities get `shutdownGraceTime` to finish, then the worker stops.
 */
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import { loadConfigOrExit, type Config } from './config.ts';
import { createConfiguredStudio } from './domain/creative/studio.ts';
import { createAuditService } from './domain/audit/audit.service.ts';
import { createChannelCore } from './domain/channels/channel-core.ts';
import { channelFetchOptions } from './net/channel-fetch.ts';
import { createCreativeServices } from './domain/creative-services.ts';
import { createSafeFetch, type SafeFetchOptions } from './net/safe-fetch.ts';
import { brandSiteUrl } from './http/hosts.ts';
import { createOrm, migrateToLatest } from './db/orm.ts';
import { createReadiness, dependencyChecks } from './domain/platform/readiness.ts';
import { startHealthServer } from './http/health.ts';
import { createLogger, type Logger } from './logger.ts';
import { ensureSearchAttributes } from './temporal/search-attributes.ts';
import { createRepublishPort } from './temporal/temporal-republish-port.ts';
import { checkTemporalTls, connectTemporalClient, temporalConnectionOptions } from './temporal/connection.ts';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from './temporal/workflows-path.ts';
import { workerTracingOptions } from './temporal/tracing-interceptors.ts';
import { startTracing } from './tracing/sdk.ts';
// Metrics (issue 24): the worker's own registry, and the Temporal SDK runtime's exporter.
import { nativePool } from './db/prepared.ts';
import { startMetricsServer, type MetricsServer } from './observability/metrics-endpoint.ts';
import { createPrometheusMetrics, type PrometheusMetrics } from './observability/prometheus.ts';
import { installWorkerRuntime } from './observability/temporal-runtime.ts';

export interface RunningWorker {
  worker: Worker;
  /** The worker's metrics registry (served on WORKER_APP_METRICS_PORT when set). */
  metrics: PrometheusMetrics;
  /** Resolves when the worker has stopped (after `shutdown()` or a signal). */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

export async function startWorker(
  config: Config,
  log: Logger,
  options: { safeFetch?: SafeFetchOptions } = {},
): Promise<RunningWorker> {
  if (!config.database.url || !config.temporal.address) {
    throw new Error('DATABASE_URL and TEMPORAL_ADDRESS must be set (`npm start` sets both)');
  }
  // Before anything is opened: a TLS misconfiguration is a start-up error with its reason, and leaks nothing.
  await checkTemporalTls(config.temporal, config.temporal.address);
  const orm = await createOrm({ url: config.database.url, poolMax: config.database.poolMax });
  await migrateToLatest(orm);
  const connection = await NativeConnection.connect(
    temporalConnectionOptions(config.temporal, config.temporal.address),
  );
  await ensureSearchAttributes(connection.operatorService, config.temporal.namespace);
  const source: Pick<WorkerOptions, 'workflowsPath' | 'workflowBundle'> = config.temporal.workflowBundlePath
    ? { workflowBundle: { codePath: config.temporal.workflowBundlePath } }
    : { workflowsPath: WORKFLOWS_PATH };
  // Trace propagation (docs/tracing.md): activity interceptors while tracing is on; the workflow interceptors
  // are in the bundle (built with them), or bundled here from source.
  const tracing = workerTracingOptions();
  const interceptors: WorkerOptions['interceptors'] = config.temporal.workflowBundlePath
    ? tracing.interceptors
    : { ...tracing.interceptors, workflowModules: WORKFLOW_INTERCEPTOR_MODULES };
  const safeFetch = createSafeFetch({ allowPrivateHosts: config.ssrfAllowPrivateHosts, ...options.safeFetch });
  // Activities that start other workflows (republish after a generation) need a client connection too.
  const { connection: clientConnection, client } = await connectTemporalClient(config, config.temporal.address, true);
  const republish = createRepublishPort({ client, taskQueue: config.temporal.taskQueue, log });
  const studio = createConfiguredStudio(config, safeFetch);
  const channelFetch = createSafeFetch(channelFetchOptions(config, options.safeFetch));
  const audit = createAuditService();
  const metrics = createPrometheusMetrics({ pool: await nativePool(orm), log });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...source,
    interceptors,
    sinks: tracing.sinks,
    activities: createActivities({
      orm,
      log,
      studio,
      safeFetch,
      republish,
      audit,
      metrics,
      channels: createChannelCore({ config, fetch: channelFetch.apiFetch, audit }),
      channelMetricsMaxAgeDays: config.channels.metricsMaxAgeDays,
      ...createCreativeServices({ studio, republish }),
      sites: {
        links: { base: config.urls.base, platform: config.urls.platform, auth: config.urls.auth },
        subdomainOrigin: (slug) => brandSiteUrl(config, slug),
        // The catalogue costs ~0.4 s of module loading; a worker pays it on its first publication only.
        toolServer: async () => (await import('./mcp/tool-listing.ts')).TOOL_SERVER_LISTING,
      },
    }),
    shutdownGraceTime: '30s',
  });
  const metricsServer: MetricsServer | null = config.metrics.workerAppPort
    ? await startMetricsServer({
        host: config.metrics.host,
        port: config.metrics.workerAppPort,
        token: config.metrics.token,
        scrape: metrics.scrape,
        log,
      })
    : null;
  // Ready while it polls its task queue and reaches what its activities use (WORKER_HEALTH_PORT).
  const readiness = createReadiness({
    worker: async () => {
      if (worker.getState() !== 'RUNNING') throw new Error(`the worker is ${worker.getState()}`);
    },
    ...dependencyChecks({ orm, temporal: connection, media: studio.media }),
  });
  const health = config.health.workerPort
    ? await startHealthServer({ readiness, host: config.http.host, port: config.health.workerPort })
    : null;
  const done = worker.run().finally(async () => {
    await metricsServer?.close();
    await health?.close();
    await clientConnection.close();
    await safeFetch.close();
    await channelFetch.close();
    await connection.close();
    await orm.close();
  });
  return {
    worker,
    metrics,
    done,
    shutdown: async () => {
      worker.shutdown();
      await done;
    },
  };
}

const isEntryPoint = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isEntryPoint) {
  const config = loadConfigOrExit();
  const log = createLogger({ level: config.logLevel, name: 'worker' });
  installWorkerRuntime(config);
  const tracing = startTracing(config, 'worker', log);
  try {
    const running = await startWorker(config, log);
    log.info({ taskQueue: config.temporal.taskQueue, namespace: config.temporal.namespace }, 'worker running');
    await running.done; // the Temporal runtime turns SIGINT/SIGTERM into a graceful shutdown
    log.info('worker stopped');
    await tracing?.shutdown();
    process.exit(0);
  } catch (error) {
    log.fatal({ err: error }, 'the worker failed');
    process.exit(1);
  }
}
