/**
 * The API process: validate configuration, build the container, serve HTTP, stop cleanly on SIGINT/SIGTERM.
 */
import http from 'node:http';
import { loadConfigOrExit } from './config.ts';
import { createContainer } from './container.ts';
import { createHttpApp } from './http/app.ts';
import { createLogger } from './logger.ts';
import { pruneExpiredPayloads } from './auth/oidc/adapter.ts';
import { startTracing } from './tracing/sdk.ts';
import { startMetricsServer } from './observability/metrics-endpoint.ts';
import { startHealthServer } from './http/health.ts';

const config = loadConfigOrExit();
const log = createLogger({ level: config.logLevel, name: 'api' });
// Before the container: its Temporal client takes the tracing interceptors only if tracing is running.
const tracing = startTracing(config, 'api', log);

let container;
try {
  container = await createContainer(config, { log });
} catch (error) {
  log.fatal({ err: error }, 'the API could not start');
  process.exit(1);
}
const { listener, close } = createHttpApp(container);
const server = http.createServer(listener);
server.keepAliveTimeout = 65_000;
server.listen(config.http.port, config.http.host, () => {
  log.info({ host: config.http.host, port: config.http.port, mcp: config.urls.mcp }, 'API listening');
});
// Probes on a port of their own (HEALTH_PORT), besides /healthz and /readyz on the platform host.
const healthServer = config.health.apiPort
  ? await startHealthServer({
      readiness: container.services.readiness,
      host: config.http.host,
      port: config.health.apiPort,
    }).catch((error: unknown) => {
      log.fatal({ err: error, port: config.health.apiPort }, 'the health endpoints could not listen (HEALTH_PORT)');
      process.exit(1);
    })
  : null;
if (healthServer) log.info({ port: healthServer.port }, 'health endpoints listening');

// Housekeeping every 10 minutes on every instance (each statement is idempotent): expired sessions, OAuth
// payloads and rate-limit state are deleted.
const housekeeping = setInterval(() => {
  const { services, orm } = container!;
  void Promise.all([
    services.sessions.prune(orm.em.fork()),
    services.rateLimiter.prune(),
    pruneExpiredPayloads(orm),
  ]).catch((error: unknown) => log.warn({ err: error }, 'housekeeping failed'));
}, 10 * 60_000);
housekeeping.unref();

// The API's /metrics on a listener of its own (docs/metrics.md); unset, the registry is served nowhere else
// than the platform host's token-guarded route, if that is configured.
const metricsServer = config.metrics.apiPort
  ? await startMetricsServer({
      host: config.metrics.host,
      port: config.metrics.apiPort,
      token: config.metrics.token,
      scrape: container.metrics.scrape,
      log,
    })
  : null;

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'API shutting down');
  const force = setTimeout(() => process.exit(1), 10_000).unref();
  server.close();
  server.closeIdleConnections();
  await metricsServer?.close();
  await healthServer?.close();
  await close();
  await container!.close();
  await tracing?.shutdown();
  clearTimeout(force);
  process.exit(0);
}
process.once('SIGINT', () => void shutdown('SIGINT'));
process.once('SIGTERM', () => void shutdown('SIGTERM'));
