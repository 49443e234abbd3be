/**
 * Composition root of the API process: builds every long-lived dependency once and hands it down.
 * A plain object, no DI framework. Tests build their own containers against the test database and server.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type Provider from 'oidc-provider';
import { createBearerVerifier } from './auth/bearer.ts';
import {
  createApiKeyCache,
  createAuthenticator,
  type ApiKeyCache,
  type Authenticator,
  type BearerVerifier,
} from './auth/authenticate.ts';
import { createConnectedAppsService } from './auth/oidc/connected-apps.ts';
import { createOidcProvider } from './auth/oidc/provider.ts';
import { createAuditService } from './domain/audit/audit.service.ts';
import { createRateLimiter } from './domain/rate-limits/rate-limiter.ts';
import { createSessionsService } from './domain/sessions/sessions.service.ts';
import { createSafeFetch, type SafeFetch, type SafeFetchOptions } from './net/safe-fetch.ts';
import { createCustomDomainsService } from './domain/brand/custom-domains.service.ts';
import { createCampaignsService } from './domain/campaigns/campaigns.service.ts';
import { createProductsService } from './domain/products/products.service.ts';
import { createProductImageStore } from './domain/products/product-images.ts';
import { createCallCodesService } from './domain/profiles/call-codes.service.ts';
import { republishOutdatedSites } from './domain/publishing/publishing.service.ts';
import { acrossWorkspaces, type WorkspaceScope } from './domain/shared/scope.ts';
import { createSurfacesService } from './domain/surfaces/surfaces.service.ts';
import { Workspace } from './domain/workspaces/workspace.entity.ts';
import { SitePublication } from './domain/publishing/site-publication.entity.ts';
import { SELECTABLE_PROFILES } from './mcp/profiles.ts';
import type { Config } from './config.ts';
import { createOrm, migrateToLatest } from './db/orm.ts';
import { createCreditsService } from './domain/credits/credits.service.ts';
import { createJobsService } from './domain/jobs/jobs.service.ts';
import { createHealthService } from './domain/platform/health.service.ts';
import { createReadiness, dependencyChecks } from './domain/platform/readiness.ts';
import { createOrganizationService } from './domain/workspaces/organization.service.ts';
import { createWorkspacesService } from './domain/workspaces/workspaces.service.ts';
import { createInvitationsService } from './domain/workspaces/invitations.service.ts';
import { createPasswordsService } from './domain/workspaces/passwords.service.ts';
import { createLogger, type Logger } from './logger.ts';
import { connectTemporalClient, type TemporalClient } from './temporal/connection.ts';
import { ensureSearchAttributes } from './temporal/search-attributes.ts';
import { ensureAnalyticsSchedule } from './temporal/analytics-schedule.ts';
import { createAnalyticsQueryService } from './domain/analytics/analytics-query.service.ts';
import { createConfiguredStudio } from './domain/creative/studio.ts';
import { createQuotesService } from './domain/credits/quotes.service.ts';
import { createFilmsService } from './domain/films/films.service.ts';
import { createGenerationLauncher } from './domain/generation/generation-launcher.ts';
import { createCreativeServices } from './domain/creative-services.ts';
import { createProductImportsService } from './domain/products/product-imports.service.ts';
import { createRendersService } from './domain/renders/renders.service.ts';
import { createTemporalJobLauncher } from './temporal/temporal-job-launcher.ts';
import { createRepublishPort } from './temporal/temporal-republish-port.ts';
import { UnavailableError } from './errors.ts';
import { brandSiteUrl } from './http/hosts.ts';
import { createSiteEventRecorder, ensureEventPartitions } from './domain/analytics/event-recorder.ts';
import { createSiteReader } from './domain/publishing/site-store.ts';
import { createConciergeService } from './domain/concierge/concierge.service.ts';
import { createChannelCore } from './domain/channels/channel-core.ts';
import { createChannelAccountsService } from './domain/channels/channel-accounts.service.ts';
import { createChannelPostsService } from './domain/channels/channel-posts.service.ts';
import { createChannelClickRecorder } from './domain/channels/channel-clicks.ts';
import { channelFetchOptions } from './net/channel-fetch.ts';
import { ensureChannelMetricsSchedule } from './temporal/channel-metrics-schedule.ts';
// Metrics (issue 24): one prom-client registry per process, handed to what records.
import { nativePool } from './db/prepared.ts';
import { rollupLagSeconds } from './domain/analytics/rollups.ts';
import { createPrometheusMetrics, type PrometheusMetrics } from './observability/prometheus.ts';

export interface Container {
  config: Config;
  log: Logger;
  orm: MikroORM;
  temporal: TemporalClient;
  services: ReturnType<typeof createServices>;
  /** The authorization server and the resource server's token verifier. */
  oauth: { provider: Provider; verifyBearer: BearerVerifier };
  /** Who is calling the tool server (OAuth token or API key); one per process, sharing its key lookups. */
  authenticator: Authenticator;
  /** The SSRF-guarded fetcher for anything on the open web. */
  safeFetch: SafeFetch;
  /** The same guard for the social networks' API clients (channel-fetch.ts). */
  channelFetch: SafeFetch;
  /** This process's metrics registry (docs/metrics.md); what records gets it as the `Metrics` port. */
  metrics: PrometheusMetrics;
  close(): Promise<void>;
}

function createServices(
  config: Config,
  orm: MikroORM,
  temporal: TemporalClient,
  log: Logger,
  safeFetch: SafeFetch,
  apiKeys: ApiKeyCache,
  channelFetch: SafeFetch,
  metrics: PrometheusMetrics,
) {
  const credits = createCreditsService({ metrics });
  const audit = createAuditService();
  const launcher = createTemporalJobLauncher(temporal.client, config.temporal.taskQueue);
  const republish = createRepublishPort({ client: temporal.client, taskQueue: config.temporal.taskQueue, log });
  const studio = createConfiguredStudio(config, safeFetch);
  const jobs = createJobsService({ launcher, metrics });
  const quotes = createQuotesService({ credits });
  const campaigns = createCampaignsService({ republish, orm });
  const { brand, generation } = createCreativeServices({ studio, republish });
  const siteUrl = async (scope: WorkspaceScope) => {
    const workspace = await scope.em.findOneOrFail(Workspace, { id: scope.workspaceId });
    return brandSiteUrl(config, workspace.slug);
  };
  // A post's link goes to the site's canonical origin: the one its latest publication was rendered for (a
  // verified custom domain), else the brand subdomain.
  const siteOrigin = async (scope: WorkspaceScope) => {
    const latest = await scope.em.findOne(SitePublication, {}, { orderBy: { version: 'desc' } });
    return latest?.origin ?? (await siteUrl(scope));
  };
  const channels = createChannelCore({ config, fetch: channelFetch.apiFetch, audit });
  const channelPosts = createChannelPostsService({
    ...channels,
    jobs,
    launcher,
    audit,
    media: studio.media,
    siteOrigin,
    publishing: { attempts: config.channels.publishAttempts, retrySeconds: config.channels.publishRetrySeconds },
  });
  return {
    republish,
    products: createProductsService({ safeFetch, images: createProductImageStore({ safeFetch, media: studio.media }) }),
    campaigns,
    surfaces: createSurfacesService({ siteUrl }),
    brand,
    analytics: createAnalyticsQueryService(),
    customDomains: createCustomDomainsService({ config, republish, safeFetch, audit }),
    callCodes: createCallCodesService({ selectableProfiles: SELECTABLE_PROFILES }),
    workspaces: createWorkspacesService({ onCredentialsChanged: () => apiKeys.clear() }),
    invitations: createInvitationsService(),
    passwords: createPasswordsService(),
    audit,
    sessions: createSessionsService(),
    rateLimiter: createRateLimiter(orm, { metrics }),
    connectedApps: createConnectedAppsService(),
    credits,
    jobs,
    quotes,
    media: studio.media,
    generation: createGenerationLauncher({
      orm,
      jobs,
      quotes,
      credits,
      campaigns,
      generation,
    }),
    renders: createRendersService({ jobs, quotes, credits, campaigns }),
    films: createFilmsService({ jobs, quotes, credits, campaigns, launcher }),
    productImports: createProductImportsService({ jobs }),
    health: createHealthService({ orm, temporal: temporal.connection, namespace: config.temporal.namespace }),
    readiness: createReadiness(dependencyChecks({ orm, temporal: temporal.connection, media: studio.media })),
    organization: createOrganizationService({ credits, brandSiteUrl: (slug) => brandSiteUrl(config, slug) }),
    siteEvents: createSiteEventRecorder(orm, { metrics }),
    concierge: createConciergeService(),
    channels,
    channelPosts,
    channelAccounts: createChannelAccountsService({ ...channels, stopPending: channelPosts.stopPending }),
    channelClicks: createChannelClickRecorder(orm),
    siteReader: createSiteReader(orm, (head) => brandSiteUrl(config, head.slug), {
      headTtlMs: config.brandSiteCacheTtlMs,
    }),
  };
}

export interface ContainerOptions {
  /** Apply pending migrations at start (the API and the worker both do; an advisory lock serialises them). */
  migrate?: boolean;
  /** Connect to Temporal on first use instead of at start (the CLI), skipping search-attribute set-up. */
  lazyTemporal?: boolean;
  log?: Logger;
  /** Overrides for the open-web fetcher (tests inject a DNS table for their loopback servers). */
  safeFetch?: SafeFetchOptions;
}

export async function createContainer(config: Config, options: ContainerOptions = {}): Promise<Container> {
  const log = options.log ?? createLogger({ level: config.logLevel, name: 'api' });
  if (!config.database.url) {
    throw new UnavailableError(
      'DATABASE_URL is not set: start the platform with `npm start`, which starts the embedded PostgreSQL',
    );
  }
  if (!config.temporal.address) {
    throw new UnavailableError(
      'TEMPORAL_ADDRESS is not set: start the platform with `npm start`, which starts the Temporal dev server',
    );
  }
  const orm = await createOrm({ url: config.database.url, poolMax: config.database.poolMax });
  try {
    if (options.migrate !== false) {
      const applied = await migrateToLatest(orm);
      if (applied.length) log.info({ applied }, 'applied database migrations');
      await ensureEventPartitions(orm);
    }
    const temporal = await connectTemporalClient(config, config.temporal.address, options.lazyTemporal);
    if (!options.lazyTemporal) {
      const added = await ensureSearchAttributes(temporal.connection.operatorService, config.temporal.namespace);
      if (added.length) log.info({ added }, 'registered Temporal search attributes');
      // Rollups only lag while the schedule is missing; a Temporal hiccup must not fail the API's start.
      await ensureAnalyticsSchedule(temporal.client, config.temporal.taskQueue).catch((error: unknown) =>
        log.warn({ err: error }, 'could not ensure the analytics rollup schedule; rollups wait until the next start'),
      );
      await ensureChannelMetricsSchedule(
        temporal.client,
        config.temporal.taskQueue,
        config.channels.metricsIntervalSeconds,
      ).catch((error: unknown) =>
        log.warn({ err: error }, 'could not ensure the channel metrics schedule; metrics wait until the next start'),
      );
    }
    const safeFetch = createSafeFetch({ allowPrivateHosts: config.ssrfAllowPrivateHosts, ...options.safeFetch });
    const channelFetch = createSafeFetch(channelFetchOptions(config, options.safeFetch));
    const provider = await createOidcProvider({ config, orm, log, safeFetch });
    const verifyBearer = createBearerVerifier({ provider, orm, config });
    const apiKeys = createApiKeyCache({ ttlMs: config.apiKeyCacheTtlMs });
    const metrics = createPrometheusMetrics({
      pool: await nativePool(orm),
      rollupLagSeconds: () => rollupLagSeconds(orm),
      log,
    });
    const services = createServices(config, orm, temporal, log, safeFetch, apiKeys, channelFetch, metrics);
    if (!options.lazyTemporal) {
      // Stored pages written under older publishing rules are replaced now, not at the brand's next change.
      await republishOutdatedSites({ em: acrossWorkspaces(orm.em), republish: services.republish, log }).catch(
        (error: unknown) => log.warn({ err: error }, 'could not look for sites published under an older format'),
      );
    }
    return {
      config,
      log,
      orm,
      temporal,
      services,
      oauth: { provider, verifyBearer },
      authenticator: createAuthenticator({ orm, verifyBearer, apiKeys, metrics }),
      safeFetch,
      channelFetch,
      metrics,
      async close() {
        await safeFetch.close();
        await channelFetch.close();
        await temporal.connection.close();
        await orm.close();
      },
    };
  } catch (error) {
    await orm.close();
    throw error;
  }
}
