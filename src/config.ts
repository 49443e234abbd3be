/**
 * Configuration: the only module that reads `process.env`.
 *
 * Every entry point (API, worker, CLI, dev stack) calls `loadConfig` once at boot and passes the result down
 * through factories. A bad or missing value stops the process with one message that names every problem,
 * instead of failing later on first use.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { TEMPORAL_SECURITY_ENV, resolveTemporalSecurity, type TemporalSecurity } from './config-temporal.ts';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** An absolute http(s) URL without query or fragment, normalised to have no trailing slash. */
const originUrl = z
  .string({ error: 'is required' })
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash;
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL without query or fragment, e.g. https://app.example.com')
  .transform((value) => value.replace(/\/+$/, ''));

const port = z.coerce
  .number({ error: 'must be a number' })
  .int('must be an integer')
  .min(1, 'must be between 1 and 65535')
  .max(65535, 'must be between 1 and 65535');

/** A port, or unset when absent or empty (`.env.example` lists the variable with no value). */
const optionalPort = z.preprocess((value) => (value === '' ? undefined : value), port.optional());

const optionalString = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

const booleanFlag = z
  .enum(['true', 'false', '1', '0', ''], { error: 'must be true or false' })
  .optional()
  .transform((value) => value === 'true' || value === '1');

const secretList = z
  .string({ error: 'is required (comma-separated secrets of at least 32 characters each)' })
  .transform((value) =>
    value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  )
  .refine((keys) => keys.length > 0, 'must contain at least one secret')
  .refine((keys) => keys.every((key) => key.length >= 32), 'every secret must be at least 32 characters long');

const hostname = z
  .string({ error: 'is required' })
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/, {
    message: 'must be a DNS hostname without scheme or port, e.g. sites.example.com',
  });

/** `1.1.1.1`, `1.1.1.1:53`, `2606:4700::1111` or `[2606:4700::1111]:53` (what `dns.setServers` takes). */
function isResolverAddress(value: string): boolean {
  const validPort = (digits: string | undefined) => !digits || (Number(digits) >= 1 && Number(digits) <= 65535);
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  if (bracketed) return net.isIPv6(bracketed[1]!) && validPort(bracketed[2]);
  if (net.isIPv6(value)) return true;
  const v4 = /^([^:]+)(?::(\d{1,5}))?$/.exec(value);
  return !!v4 && net.isIPv4(v4[1]!) && validPort(v4[2]);
}

/** An OTLP/HTTP endpoint: an absolute http(s) URL (credentials belong in OTEL_EXPORTER_OTLP_HEADERS, not here). */
const otlpUrl = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
  } catch {
    return false;
  }
}, 'must be an absolute http(s) URL without credentials, e.g. http://otel-collector:4318');

/** `key=value,key2=value2` with URL-encoded values (the OTLP exporter specification's format). */
const otlpHeaders = z.string().transform((value, ctx) => {
  const headers: Record<string, string> = {};
  for (const pair of value.split(',')) {
    if (!pair.trim()) continue;
    const at = pair.indexOf('=');
    const name = at > 0 ? pair.slice(0, at).trim() : '';
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
      // The value may be a secret (an API key): the message names neither it nor the pair.
      ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of name=value pairs' });
      return z.NEVER;
    }
    try {
      headers[name.toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      ctx.addIssue({ code: 'custom', message: `has a badly URL-encoded value for ${name}` });
      return z.NEVER;
    }
  }
  return headers;
});

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),

  HTTP_HOST: z.string().trim().min(1).default('127.0.0.1'),
  HTTP_PORT: port.default(3000),
  TRUST_PROXY: booleanFlag,
  // Health (`/healthz`, `/readyz`, src/http/health.ts): optional listeners of their own for probes that must
  // not go through the public proxy; unset, the API answers on the platform host only and the worker not at all.
  HEALTH_PORT: optionalPort,
  WORKER_HEALTH_PORT: optionalPort,

  BASE_URL: originUrl.optional(),
  PLATFORM_URL: originUrl.optional(),
  AUTH_URL: originUrl.optional(),
  BRAND_ROOT_DOMAIN: hostname.optional(),

  DATABASE_URL: optionalString.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// connection URL')
      .optional(),
  ),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  DATA_DIR: z.string().trim().min(1).default('.data'),
  EMBEDDED_POSTGRES_PORT: port.default(54329),

  TEMPORAL_ADDRESS: optionalString.pipe(
    z
      .string()
      .regex(/^[^\s:/]+:\d+$/, 'must be host:port, e.g. 127.0.0.1:7233')
      .optional(),
  ),
  TEMPORAL_NAMESPACE: z.string().trim().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().trim().min(1).default('campaign-platform'),
  TEMPORAL_CLI_PATH: optionalString,
  TOOLS_DIR: z.string().trim().min(1).default('.tools'),
  CLI_CREDENTIALS_FILE: optionalString,
  TEMPORAL_DEV_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_UI_URL: optionalString,
  WORKFLOW_BUNDLE_PATH: optionalString,
  // Temporal over TLS, mTLS or with an API key (Temporal Cloud): Temporal's own variable names, see config-temporal.ts.
  ...TEMPORAL_SECURITY_ENV,

  COOKIE_SECRETS: secretList.optional(),
  CREDENTIAL_KEYS: secretList.optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(120),
  CALL_CODE_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(15_000),
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
  BRAND_SITE_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  CONCIERGE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(30),
  SSRF_ALLOW_PRIVATE_HOSTS: z
    .string()
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
    ),
  DNS_RESOLVER_SERVERS: z
    .string()
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((server) => server.trim())
        .filter(Boolean),
    )
    .refine(
      (servers) => servers.every(isResolverAddress),
      'must be a comma-separated list of resolver IP addresses with optional ports, e.g. 1.1.1.1,[2606:4700::1111]:53',
    ),
  DOMAIN_VERIFICATION_HTTP_PORT: port.default(80),
  MEDIA_STORE: z.enum(['local', 's3']).default('local'),
  MEDIA_DIR: optionalString,
  S3_ENDPOINT: optionalString,
  S3_BUCKET: optionalString,
  S3_REGION: z.string().trim().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  CREATIVE_PROVIDER: z.enum(['builtin', 'openai']).default('builtin'),
  OPENAI_BASE_URL: optionalString,
  OPENAI_API_KEY: optionalString,
  OPENAI_TEXT_MODEL: z.string().trim().min(1).default('gpt-4o-mini'),
  OPENAI_IMAGE_MODEL: optionalString,
  BLUESKY_SERVICE_URL: originUrl.default('https://bsky.social'),
  // The platform's apps with Meta, Reddit and TikTok (docs/channels.md says how an operator registers them). A
  // network whose id or secret is unset shows "not set up" instead of a Connect button. The URLs are the
  // networks' own unless a test points them at its stand-ins.
  META_APP_ID: optionalString,
  META_APP_SECRET: optionalString,
  META_GRAPH_URL: originUrl.default('https://graph.facebook.com'),
  META_DIALOG_URL: originUrl.default('https://www.facebook.com'),
  META_GRAPH_VERSION: z
    .string()
    .trim()
    .regex(/^v\d+\.\d+$/, 'must look like v24.0')
    .default('v24.0'),
  REDDIT_CLIENT_ID: optionalString,
  REDDIT_CLIENT_SECRET: optionalString,
  REDDIT_AUTH_URL: originUrl.default('https://www.reddit.com'),
  REDDIT_API_URL: originUrl.default('https://oauth.reddit.com'),
  /** Reddit requires a descriptive User-Agent naming the app and its operator's Reddit account. */
  REDDIT_USER_AGENT: optionalString,
  TIKTOK_CLIENT_KEY: optionalString,
  TIKTOK_CLIENT_SECRET: optionalString,
  TIKTOK_AUTH_URL: originUrl.default('https://www.tiktok.com'),
  TIKTOK_API_URL: originUrl.default('https://open.tiktokapis.com'),
  /** Whether TikTok has audited the operator's app (until then, posts can only be private to the creator). */
  TIKTOK_AUDITED: booleanFlag,
  /** How TikTok gets a video: uploaded by the platform, or pulled from its media link (needs a verified domain). */
  TIKTOK_VIDEO_SOURCE: z.enum(['FILE_UPLOAD', 'PULL_FROM_URL']).default('FILE_UPLOAD'),
  CHANNEL_METRICS_INTERVAL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(900),
  CHANNEL_METRICS_MAX_AGE_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  CHANNEL_PUBLISH_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
  CHANNEL_PUBLISH_RETRY_SECONDS: z.coerce.number().min(0.1).max(3600).default(5),
  CHANNEL_TOKEN_REFRESH_AHEAD_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(86_400 * 30)
    .default(600),
  // --- Tracing (docs/tracing.md): OpenTelemetry over OTLP/HTTP, off unless an endpoint is set. The standard
  // OTEL_* names, so a collector's usual settings apply unchanged.
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString.pipe(otlpUrl.optional()),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalString.pipe(otlpUrl.optional()),
  OTEL_EXPORTER_OTLP_HEADERS: optionalString.pipe(otlpHeaders.optional()),
  OTEL_TRACES_SAMPLER_ARG: z.coerce
    .number({ error: 'must be a number between 0 and 1' })
    .min(0, 'must be between 0 and 1')
    .max(1, 'must be between 0 and 1')
    .default(1),
  OTEL_SDK_DISABLED: booleanFlag,
  ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((origin) => origin.trim().replace(/\/+$/, ''))
        .filter(Boolean),
    )
    .refine(
      (origins) => origins.every((origin) => /^https?:\/\/[^/\s]+$/.test(origin)),
      'must be a comma-separated list of origins like https://inspector.example.com',
    ),

  // Metrics (docs/metrics.md): where Prometheus reads each process's registry. Unset, nothing is exposed.
  METRICS_HOST: optionalString,
  METRICS_PORT: port.optional(),
  METRICS_TOKEN: optionalString.pipe(z.string().min(32, 'must be at least 32 characters long').optional()),
  WORKER_APP_METRICS_PORT: port.optional(),
  WORKER_METRICS_PORT: port.optional(),
});

/**
 * Outside production the public URLs default to `*.localhost` names on one port (browsers and curl resolve
 * every `*.localhost` name to loopback), so a fresh clone runs with no configuration at all.
 */
function developmentUrls(portNumber: number) {
  return {
    BASE_URL: `http://localhost:${portNumber}`,
    PLATFORM_URL: `http://app.localhost:${portNumber}`,
    AUTH_URL: `http://auth.localhost:${portNumber}`,
    BRAND_ROOT_DOMAIN: 'sites.localhost',
  };
}

export type Env = Record<string, string | undefined>;

/** Every environment variable the platform reads (each is documented in `.env.example`). */
export const ENV_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape);

export interface Config {
  env: 'development' | 'test' | 'production';
  logLevel: (typeof LOG_LEVELS)[number];
  http: { host: string; port: number; trustProxy: boolean };
  /** Ports of the API's and the worker's own `/healthz` and `/readyz` listeners (bound to `http.host`). */
  health: { apiPort: number | undefined; workerPort: number | undefined };
  urls: {
    /** Root public site: anonymous, no cookies, no credentials. */
    base: string;
    /** Application host: `/api/mcp`, the dashboard, protected-resource metadata. */
    platform: string;
    /** Authorization server issuer (no path). */
    auth: string;
    /** The MCP endpoint, also the RFC 8707 resource identifier and token audience. */
    mcp: string;
    /** Brand sites live at `<slug>.<brandRootDomain>`. */
    brandRootDomain: string;
  };
  database: {
    /** Unset means: start the embedded PostgreSQL (dev stack and tests do that, then set it). */
    url: string | undefined;
    poolMax: number;
    embeddedPort: number;
  };
  dataDir: string;
  temporal: {
    /** Unset means: start the local Temporal dev server. */
    address: string | undefined;
    namespace: string;
    taskQueue: string;
    cliPath: string | undefined;
    /** Where `npm run tools:install` (and first use) builds and caches the Go tools: the Temporal CLI, the S3 gateway. */
    toolsDir: string;
    devPort: number;
    uiPort: number;
    uiUrl: string | undefined;
    workflowBundlePath: string | undefined;
    /** TLS, mutual TLS and API key for API, worker and CLI alike (`temporal/connection.ts` builds the options). */
    security: TemporalSecurity;
  };
  secrets: {
    cookieKeys: string[];
    /**
     * True when COOKIE_SECRETS was unset and `cookieKeys` is a random key of this process alone. The dev stack
     * and the CLI then use the secret kept in DATA_DIR instead (`src/dev/local-services.ts`), so that they
     * agree with each other and with what earlier runs encrypted.
     */
    generated: boolean;
    /**
     * Secrets that seal channel credentials at rest (`domain/shared/secret-box.ts`): the first seals, all open.
     * Generated like `cookieKeys` when CREDENTIAL_KEYS is unset outside production (`credentialKeysGenerated`);
     * the dev stack and the CLI then keep one in DATA_DIR, and the API and worker must share it.
     */
    credentialKeys: string[];
    credentialKeysGenerated: boolean;
  };
  /** Browser origins allowed to call `/api/mcp` besides the platform's own (DNS-rebinding protection). */
  allowedOrigins: string[];
  /** Requests per minute per token (OAuth grant or API key) on the tool server. */
  rateLimitPerMinute: number;
  /** How long a call-code answer is cached per workspace (a revocation takes effect within this time). */
  callCodeCacheTtlMs: number;
  /** How long an API-key lookup is remembered (0: never); changes on other instances apply within it. */
  apiKeyCacheTtlMs: number;
  /** Lifetime of OAuth access tokens; clients with the refresh_token grant renew them without a browser. */
  oauthAccessTokenTtlSeconds: number;
  /** How long a brand host's latest publication is trusted before asking again (a republish shows within it). */
  brandSiteCacheTtlMs: number;
  /** Concierge questions per minute per visitor address and brand. */
  conciergeRateLimitPerMinute: number;
  /** Hosts the open-web fetcher may reach on private addresses (operator opt-in, e.g. an internal catalogue). */
  ssrfAllowPrivateHosts: string[];
  /** How custom domains are verified (DNS TXT record, then HTTP token file). */
  domainVerification: {
    /** DNS servers for the TXT lookup and the HTTP check's address lookup; empty = the system's resolvers. */
    resolverServers: string[];
    /** Port of the HTTP token check (80 in production; tests point it at a loopback server). */
    httpPort: number;
  };
  /** Where `campaignctl login` keeps its OAuth tokens (mode 0600). */
  cliCredentialsFile: string;
  /** Generated media (images, videos): a local directory, or an S3-compatible bucket. */
  media:
    | { store: 'local'; dir: string }
    | { store: 's3'; endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string };
  /** Social channels (`domain/channels/`). */
  channels: {
    /** The Bluesky (AT Protocol) service accounts sign in to: an entryway or a PDS. */
    blueskyServiceUrl: string;
    /** The platform's Meta app (Facebook Login for Pages and Instagram) and the Graph API's hosts. */
    meta: { appId: string; appSecret: string; graphUrl: string; dialogUrl: string; graphVersion: string };
    /** The platform's Reddit app (it needs Reddit's approval) and Reddit's hosts. */
    reddit: { clientId: string; clientSecret: string; authUrl: string; apiUrl: string; userAgent: string };
    /** The platform's TikTok app (Content Posting API) and TikTok's hosts. */
    tiktok: {
      clientKey: string;
      clientSecret: string;
      authUrl: string;
      apiUrl: string;
      audited: boolean;
      videoSource: 'FILE_UPLOAD' | 'PULL_FROM_URL';
    };
    /** How often the metrics schedule pulls the engagement of recent posts. */
    metricsIntervalSeconds: number;
    /** Posts published within this many days have their metrics pulled. */
    metricsMaxAgeDays: number;
    /** Publishing attempts against an unreachable network before the post fails (exponential back-off). */
    publishAttempts: number;
    /** The first back-off of a failed publishing attempt; it doubles per attempt, up to 10 minutes. */
    publishRetrySeconds: number;
    /** Access tokens are refreshed once they expire within this many seconds. */
    tokenRefreshAheadSeconds: number;
  };
  /**
   * OpenTelemetry tracing (`src/tracing/`): `tracesUrl` is where spans are POSTed as OTLP/HTTP JSON; null means
   * off (no SDK is started). `headers` may carry a vendor's API key: never log them.
   */
  tracing: { tracesUrl: string | null; headers: Record<string, string>; sampleRatio: number };
  /** Where each process exposes its metrics (docs/metrics.md); every port unset means not exposed. */
  metrics: {
    /** The address the metrics listeners bind to (default: HTTP_HOST). */
    host: string;
    /** The API's own `/metrics` listener. */
    apiPort: number | undefined;
    /** Bearer token for `/metrics`: with it the platform host serves `/metrics` too, and every listener asks for it. */
    token: string | undefined;
    /** The worker's own registry (jobs, credits, channel posts, Node, pool). */
    workerAppPort: number | undefined;
    /** The Temporal SDK's runtime metrics of the worker (served by the SDK's core). */
    workerSdkPort: number | undefined;
  };
  /** Creative engines: the built-in deterministic ones, or an OpenAI-compatible HTTP API. */
  creative:
    | { provider: 'builtin' }
    | { provider: 'openai'; baseUrl: string; apiKey: string; textModel: string; imageModel: string | null };
}

/** Thrown by `loadConfig`; `problems` holds one line per offending variable. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((line) => `  - ${line}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/**
 * Parses and validates an environment: pass `process.env` at the edge, a literal object in tests. Pure but for
 * reading the Temporal TLS files the environment names (so that a bad one fails the start, not the first call).
 */
export function loadConfig(env: Env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const key = issue.path.join('.') || '(environment)';
      const message = issue.code === 'invalid_type' && env[key] === undefined ? 'is required' : issue.message;
      return `${key} ${message}`;
    });
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  const crossProblems: string[] = [];
  if (e.NODE_ENV === 'production') {
    for (const key of [
      'BASE_URL',
      'PLATFORM_URL',
      'AUTH_URL',
      'BRAND_ROOT_DOMAIN',
      'COOKIE_SECRETS',
      'CREDENTIAL_KEYS',
    ] as const) {
      if (!e[key]) crossProblems.push(`${key} is required in production`);
    }
    if (crossProblems.length > 0) throw new ConfigError(crossProblems);
  }
  const defaults = developmentUrls(e.HTTP_PORT);
  const baseUrl = e.BASE_URL ?? defaults.BASE_URL;
  const platformUrl = e.PLATFORM_URL ?? defaults.PLATFORM_URL;
  const authUrl = e.AUTH_URL ?? defaults.AUTH_URL;
  const brandRootDomain = e.BRAND_ROOT_DOMAIN ?? defaults.BRAND_ROOT_DOMAIN;
  // Outside production a missing secret gets a random one per process: sessions then end on restart, which is
  // acceptable for development (the dev stack persists one in DATA_DIR so that they survive restarts).
  const cookieKeys = e.COOKIE_SECRETS ?? [randomBytes(32).toString('base64url')];
  const credentialKeys = e.CREDENTIAL_KEYS ?? [randomBytes(32).toString('base64url')];
  if (new URL(authUrl).pathname !== '/') {
    crossProblems.push('AUTH_URL must not have a path: it is the OAuth issuer and RFC 8414 metadata sits at its root');
  }
  const hosts = [baseUrl, platformUrl, authUrl].map((u) => new URL(u).host);
  if (new Set(hosts).size !== hosts.length) {
    crossProblems.push(
      'BASE_URL, PLATFORM_URL and AUTH_URL must use three different hosts (requests are dispatched by Host)',
    );
  }
  const platformHost = new URL(platformUrl).hostname;
  if (platformHost.endsWith(`.${brandRootDomain}`)) {
    crossProblems.push(
      'PLATFORM_URL must not be a subdomain of BRAND_ROOT_DOMAIN (it would be taken for a brand site)',
    );
  }
  if (e.NODE_ENV === 'production' && !e.DATABASE_URL) {
    crossProblems.push('DATABASE_URL is required in production (the embedded PostgreSQL is for development only)');
  }
  if (e.NODE_ENV === 'production' && !e.TEMPORAL_ADDRESS) {
    crossProblems.push('TEMPORAL_ADDRESS is required in production (the Temporal dev server is for development only)');
  }
  const temporalSecurity = resolveTemporalSecurity(e, e.TEMPORAL_ADDRESS, crossProblems);
  if (e.MEDIA_STORE === 's3') {
    for (const key of ['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const) {
      if (!e[key]) crossProblems.push(`${key} is required when MEDIA_STORE=s3`);
    }
    if (e.S3_ENDPOINT && !/^https?:\/\//.test(e.S3_ENDPOINT)) crossProblems.push('S3_ENDPOINT must be an http(s) URL');
  }
  if (e.REDDIT_CLIENT_ID && !e.REDDIT_USER_AGENT) {
    crossProblems.push(
      'REDDIT_USER_AGENT is required with REDDIT_CLIENT_ID: Reddit asks for <platform>:<app id>:<version> (by /u/<your Reddit name>), e.g. web:com.example.campaigns:1.0 (by /u/example)',
    );
  } else if (e.REDDIT_USER_AGENT && !/\(by \/u\/[\w-]+\)\s*$/.test(e.REDDIT_USER_AGENT)) {
    crossProblems.push(
      'REDDIT_USER_AGENT must end with (by /u/<your Reddit name>), as Reddit asks: e.g. web:com.example.campaigns:1.0 (by /u/example)',
    );
  }
  if (e.CREATIVE_PROVIDER === 'openai') {
    if (!e.OPENAI_BASE_URL) crossProblems.push('OPENAI_BASE_URL is required when CREATIVE_PROVIDER=openai');
    else if (!/^https?:\/\//.test(e.OPENAI_BASE_URL)) crossProblems.push('OPENAI_BASE_URL must be an http(s) URL');
    if (!e.OPENAI_API_KEY) crossProblems.push('OPENAI_API_KEY is required when CREATIVE_PROVIDER=openai');
  }
  const metricsPorts = [e.HTTP_PORT, e.METRICS_PORT, e.WORKER_APP_METRICS_PORT, e.WORKER_METRICS_PORT].filter(
    (value) => value !== undefined,
  );
  if (new Set(metricsPorts).size !== metricsPorts.length) {
    crossProblems.push(
      'HTTP_PORT, METRICS_PORT, WORKER_APP_METRICS_PORT and WORKER_METRICS_PORT must all differ (each is a listener of its own)',
    );
  }
  if (crossProblems.length > 0) throw new ConfigError(crossProblems);

  return {
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    http: { host: e.HTTP_HOST, port: e.HTTP_PORT, trustProxy: e.TRUST_PROXY },
    health: { apiPort: e.HEALTH_PORT, workerPort: e.WORKER_HEALTH_PORT },
    urls: {
      base: baseUrl,
      platform: platformUrl,
      auth: authUrl,
      mcp: `${platformUrl}/api/mcp`,
      brandRootDomain,
    },
    database: { url: e.DATABASE_URL, poolMax: e.DATABASE_POOL_MAX, embeddedPort: e.EMBEDDED_POSTGRES_PORT },
    dataDir: path.resolve(e.DATA_DIR),
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      cliPath: e.TEMPORAL_CLI_PATH,
      toolsDir: path.resolve(e.TOOLS_DIR),
      devPort: e.TEMPORAL_DEV_PORT,
      uiPort: e.TEMPORAL_UI_PORT,
      uiUrl: e.TEMPORAL_UI_URL,
      workflowBundlePath: e.WORKFLOW_BUNDLE_PATH,
      security: temporalSecurity,
    },
    secrets: {
      cookieKeys,
      generated: !e.COOKIE_SECRETS,
      credentialKeys,
      credentialKeysGenerated: !e.CREDENTIAL_KEYS,
    },
    allowedOrigins: [new URL(platformUrl).origin, ...e.ALLOWED_ORIGINS],
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    callCodeCacheTtlMs: e.CALL_CODE_CACHE_TTL_MS,
    apiKeyCacheTtlMs: e.API_KEY_CACHE_TTL_MS,
    oauthAccessTokenTtlSeconds: e.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
    brandSiteCacheTtlMs: e.BRAND_SITE_CACHE_TTL_MS,
    conciergeRateLimitPerMinute: e.CONCIERGE_RATE_LIMIT_PER_MINUTE,
    ssrfAllowPrivateHosts: e.SSRF_ALLOW_PRIVATE_HOSTS,
    domainVerification: { resolverServers: e.DNS_RESOLVER_SERVERS, httpPort: e.DOMAIN_VERIFICATION_HTTP_PORT },
    cliCredentialsFile: path.resolve(
      e.CLI_CREDENTIALS_FILE ?? path.join(os.homedir(), '.config', 'campaign-platform', 'credentials.json'),
    ),
    media:
      e.MEDIA_STORE === 's3'
        ? {
            store: 's3',
            endpoint: e.S3_ENDPOINT!.replace(/\/+$/, ''),
            bucket: e.S3_BUCKET!,
            region: e.S3_REGION,
            accessKeyId: e.S3_ACCESS_KEY_ID!,
            secretAccessKey: e.S3_SECRET_ACCESS_KEY!,
          }
        : { store: 'local', dir: path.resolve(e.MEDIA_DIR ?? path.join(e.DATA_DIR, 'media')) },
    channels: {
      blueskyServiceUrl: e.BLUESKY_SERVICE_URL,
      meta: {
        appId: e.META_APP_ID ?? '',
        appSecret: e.META_APP_SECRET ?? '',
        graphUrl: e.META_GRAPH_URL,
        dialogUrl: e.META_DIALOG_URL,
        graphVersion: e.META_GRAPH_VERSION,
      },
      reddit: {
        clientId: e.REDDIT_CLIENT_ID ?? '',
        clientSecret: e.REDDIT_CLIENT_SECRET ?? '',
        authUrl: e.REDDIT_AUTH_URL,
        apiUrl: e.REDDIT_API_URL,
        userAgent: e.REDDIT_USER_AGENT ?? '',
      },
      tiktok: {
        clientKey: e.TIKTOK_CLIENT_KEY ?? '',
        clientSecret: e.TIKTOK_CLIENT_SECRET ?? '',
        authUrl: e.TIKTOK_AUTH_URL,
        apiUrl: e.TIKTOK_API_URL,
        audited: e.TIKTOK_AUDITED,
        videoSource: e.TIKTOK_VIDEO_SOURCE,
      },
      metricsIntervalSeconds: e.CHANNEL_METRICS_INTERVAL_SECONDS,
      metricsMaxAgeDays: e.CHANNEL_METRICS_MAX_AGE_DAYS,
      publishAttempts: e.CHANNEL_PUBLISH_ATTEMPTS,
      publishRetrySeconds: e.CHANNEL_PUBLISH_RETRY_SECONDS,
      tokenRefreshAheadSeconds: e.CHANNEL_TOKEN_REFRESH_AHEAD_SECONDS,
    },
    tracing: {
      // The signal-specific URL is used as given; the general one gets /v1/traces appended (the OTLP spec's rule).
      tracesUrl: e.OTEL_SDK_DISABLED
        ? null
        : (e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
          (e.OTEL_EXPORTER_OTLP_ENDPOINT ? `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : null)),
      headers: e.OTEL_EXPORTER_OTLP_HEADERS ?? {},
      sampleRatio: e.OTEL_TRACES_SAMPLER_ARG,
    },
    metrics: {
      host: e.METRICS_HOST ?? e.HTTP_HOST,
      apiPort: e.METRICS_PORT,
      token: e.METRICS_TOKEN,
      workerAppPort: e.WORKER_APP_METRICS_PORT,
      workerSdkPort: e.WORKER_METRICS_PORT,
    },
    creative:
      e.CREATIVE_PROVIDER === 'openai'
        ? {
            provider: 'openai',
            baseUrl: e.OPENAI_BASE_URL!.replace(/\/+$/, ''),
            apiKey: e.OPENAI_API_KEY!,
            textModel: e.OPENAI_TEXT_MODEL,
            imageModel: e.OPENAI_IMAGE_MODEL ?? null,
          }
        : { provider: 'builtin' },
  };
}

/** Entry-point helper: validate `process.env` or exit non-zero with the list of problems. */
export function loadConfigOrExit(env: Env = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee .env.example for every variable and its meaning.\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}

/** The process environment, for the few entry points that hand it on to child processes. */
export function processEnv(): Env {
  return process.env;
}
