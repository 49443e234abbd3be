/**
 * A worker in its own OS process (`node src/worker.ts`), for tests that kill it the hard way.
 */
import type { Config } from '../../src/config.ts';
import { spawnLogged, type LoggedProcess } from './logged-process.ts';

/** `ready` resolves once the worker logged that it is polling. */
export type WorkerProcess = LoggedProcess;

/** The Meta, Reddit and TikTok settings of the platform, for its worker (empty ones left out: not set up). */
function networkEnvOf({ meta, reddit, tiktok }: Config['channels']): Record<string, string> {
  const values: Record<string, string> = {
    META_APP_ID: meta.appId,
    META_APP_SECRET: meta.appSecret,
    META_GRAPH_URL: meta.graphUrl,
    META_DIALOG_URL: meta.dialogUrl,
    META_GRAPH_VERSION: meta.graphVersion,
    REDDIT_CLIENT_ID: reddit.clientId,
    REDDIT_CLIENT_SECRET: reddit.clientSecret,
    REDDIT_AUTH_URL: reddit.authUrl,
    REDDIT_API_URL: reddit.apiUrl,
    REDDIT_USER_AGENT: reddit.userAgent,
    TIKTOK_CLIENT_KEY: tiktok.clientKey,
    TIKTOK_CLIENT_SECRET: tiktok.clientSecret,
    TIKTOK_AUTH_URL: tiktok.authUrl,
    TIKTOK_API_URL: tiktok.apiUrl,
    TIKTOK_AUDITED: String(tiktok.audited),
    TIKTOK_VIDEO_SOURCE: tiktok.videoSource,
  };
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ''));
}

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
    ...networkEnvOf(config.channels),
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
