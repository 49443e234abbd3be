/**
 * A worker in its own OS process (`node src/worker.ts`), for tests that kill it the hard way.
 */
import type { Config } from '../../src/config.ts';
import { spawnLogged, type LoggedProcess } from './logged-process.ts';

/** `ready` resolves once the worker logged that it is polling. */
export type WorkerProcess = LoggedProcess;

export function workerEnv(config: Config): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    HTTP_PORT: String(config.http.port),
    DATABASE_URL: config.database.url!,
    TEMPORAL_ADDRESS: config.temporal.address!,
    TEMPORAL_NAMESPACE: config.temporal.namespace,
    TEMPORAL_TASK_QUEUE: config.temporal.taskQueue,
    WORKFLOW_BUNDLE_PATH: config.temporal.workflowBundlePath!,
    COOKIE_SECRETS: config.secrets.cookieKeys.join(','),
    CREDENTIAL_KEYS: config.secrets.credentialKeys.join(','),
    BLUESKY_SERVICE_URL: config.channels.blueskyServiceUrl,
    CHANNEL_PUBLISH_ATTEMPTS: String(config.channels.publishAttempts),
    CHANNEL_PUBLISH_RETRY_SECONDS: String(config.channels.publishRetrySeconds),
    CHANNEL_TOKEN_REFRESH_AHEAD_SECONDS: String(config.channels.tokenRefreshAheadSeconds),
    // The same data and media folders as the platform that spawned it, so what the worker stores (renders,
    // images) is what the platform's media store reads (the defaults would be `.data`, not the test's folder).
    DATA_DIR: config.dataDir,
    ...(config.media.store === 'local' ? { MEDIA_DIR: config.media.dir } : {}),
  };
}

export function spawnWorker(config: Config): WorkerProcess {
  return spawnLogged('src/worker.ts', workerEnv(config), '"worker running"', 'worker');
}
