/**
 * The one Koa application, dispatching by Host to the four sites: the root public site, the platform
 * (tool server + dashboard), the authorization server and brand sites. Any other host name is looked up as a
 * verified custom domain, and gets 404 from the brand host when it is none (this is also what defeats DNS
 * rebinding: a rebound name never matches a configured host or a verified domain).
 */
import type http from 'node:http';
import Koa from 'koa';
import mount from 'koa-mount';
import type Router from '@koa/router';
import { interactionRoutes } from '../auth/oidc/interactions.ts';
import { offlineAccessNeedsConsent } from '../auth/oidc/offline-access-consent.ts';
import { registrationDefaults } from '../auth/oidc/registration-defaults.ts';
import type { Container } from '../container.ts';
import { createMcpEndpoint, type McpEndpoint } from '../mcp/http-handler.ts';
import { createProfileResolver } from '../mcp/profile-resolver.ts';
import { createCsrf } from './csrf.ts';
import { createSiteResolver, type Site } from './hosts.ts';
import { errorBoundary } from './middleware/error-boundary.ts';
import { healthRoutes } from './health.ts';
import { noFraming } from './middleware/no-framing.ts';
import { addressRateLimit } from './middleware/rate-limit.ts';
import { requestId } from './middleware/request-id.ts';
import { traceRequests } from './middleware/trace-request.ts';
import { dashboardRoutes } from './dashboard/index.ts';
import { conversionRoutes } from './routes/conversions.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { mediaRoutes } from './routes/media.ts';
import { protectedResourceRoutes } from './routes/protected-resource.ts';
import { TOOL_SERVER_LISTING } from '../mcp/tool-listing.ts';
import { rootSiteRoutes } from './routes/root-site.ts';
import { brandSiteRoutes } from './routes/brand-site.ts';
import { conciergeMiddleware } from './routes/brand-concierge.ts';
import { createBufferedSink } from '../domain/analytics/buffered-sink.ts';
import { createBrandFastPath } from './brand-fast-path.ts';
import { accessLog } from './middleware/access-log.ts';
import { metricsRoutes } from './routes/metrics.ts';

export interface HttpApp {
  app: Koa;
  /**
   * The server's request listener: the brand-document hot path (brand-fast-path.ts), then the Koa app for
   * everything it declines. Serve this, not `app.callback()`, which skips the hot path.
   */
  listener: http.RequestListener;
  close(): Promise<void>;
}

/** Composes routers and plain middleware into one middleware (falls through to `next` when nothing answers). */
function compose(parts: (Router | Koa.Middleware)[]): Koa.Middleware {
  const middlewares = parts.flatMap((part) =>
    typeof part === 'function' ? [part] : ([part.routes(), part.allowedMethods()] as unknown as Koa.Middleware[]),
  );
  return async (ctx, next) => {
    let index = -1;
    const dispatch = async (i: number): Promise<void> => {
      if (i <= index) throw new Error('next() called twice');
      index = i;
      const middleware = middlewares[i];
      if (!middleware) return next();
      await middleware(ctx, () => dispatch(i + 1));
    };
    await dispatch(0);
  };
}

export function createHttpApp(container: Container): HttpApp {
  const { config, log, services } = container;
  const app = new Koa({ proxy: config.http.trustProxy });
  // The authorization server is mounted into this app and signs its cookies with this app's keys.
  app.keys = [...config.secrets.cookieKeys];
  const resolveSite = createSiteResolver(config);
  const { metrics } = container;
  const endpoint: McpEndpoint = createMcpEndpoint({ orm: container.orm, services, log, metrics });
  const { authenticator } = container;
  const platformCsrf = createCsrf({
    keys: config.secrets.cookieKeys,
    secure: config.urls.platform.startsWith('https:'),
  });
  const authCsrf = createCsrf({ keys: config.secrets.cookieKeys, secure: config.urls.auth.startsWith('https:') });

  // One budget per credential, shared by the tool server and the REST conversions endpoint.
  const toolServerPolicy = { name: 'tool-server', limit: config.rateLimitPerMinute, windowSeconds: 60 };
  const platform = compose([
    // Load-balancer probes first: they need no session, no rate limit, no page chrome.
    healthRoutes(services.readiness),
    // The dashboard's pages (and, harmlessly, the JSON endpoints beside them) may not be framed.
    noFraming(),
    // Metrics on the platform host only with a token (docs/metrics.md); a listener of its own is preferred.
    ...(config.metrics.token ? [metricsRoutes({ token: config.metrics.token, scrape: metrics.scrape })] : []),
    protectedResourceRoutes(config),
    mediaRoutes(services.media, services.channels.mediaLinks),
    mcpRoutes({
      config,
      authenticator,
      endpoint,
      profiles: createProfileResolver(
        (code, workspaceId) => services.callCodes.lookup(container.orm.em.fork(), code, workspaceId),
        { cacheTtlMs: config.callCodeCacheTtlMs },
      ),
      rateLimit: { limiter: services.rateLimiter, policy: toolServerPolicy },
    }),
    conversionRoutes({
      config,
      orm: container.orm,
      authenticator,
      limiter: services.rateLimiter,
      rateLimit: toolServerPolicy,
      recorder: services.siteEvents,
      metrics,
    }),
    dashboardRoutes({
      container,
      sessions: services.sessions,
      audit: services.audit,
      connectedApps: services.connectedApps,
      limiter: services.rateLimiter,
      csrf: platformCsrf,
      revokeWorkspaceGrants: async (workspaceId) => {
        const em = container.orm.em.fork();
        for (const app of await services.connectedApps.list(em, workspaceId)) {
          await services.connectedApps.revoke(em, workspaceId, app.grantId);
        }
      },
    }),
  ]);

  const auth = compose([
    // Sign-in and consent pages, and oidc-provider's own pages, may not be framed.
    noFraming(),
    addressRateLimit(
      services.rateLimiter,
      { name: 'oauth-register-ip', limit: 30, windowSeconds: 3600 },
      (path, method) => path === '/oauth/register' && method === 'POST',
    ),
    registrationDefaults(),
    offlineAccessNeedsConsent(),
    interactionRoutes({
      config,
      orm: container.orm,
      provider: container.oauth.provider,
      csrf: authCsrf,
      limiter: services.rateLimiter,
      audit: services.audit,
      log,
    }),
    mount(container.oauth.provider as unknown as Koa),
  ]);

  const root = compose([rootSiteRoutes(config, TOOL_SERVER_LISTING)]);
  // Events minted while serving have never been written, so they take the recorder's COPY path.
  const servedEvents = createBufferedSink({ record: (events) => services.siteEvents.recordFresh(events) }, { log });
  const brand = brandSiteRoutes({
    reader: services.siteReader,
    events: services.siteEvents,
    servedEvents,
    log,
    metrics,
    channelClicks: services.channelClicks,
    concierge: conciergeMiddleware({
      concierge: services.concierge,
      limiter: services.rateLimiter,
      events: servedEvents,
      log,
      perVisitorPerMinute: config.conciergeRateLimitPerMinute,
    }),
  });

  // Every other kind of site has its handler here, so no host falls between them.
  const sites: Record<Exclude<Site['kind'], 'brand' | 'unknown'>, Koa.Middleware> = { platform, auth, root };

  app.use(traceRequests()); // first, so its span covers the whole request (docs/tracing.md)
  app.use(requestId());
  // Outside the error boundary, so the line and the count see the status the boundary answered with.
  app.use(accessLog({ log, metrics, resolveSite }));
  app.use(errorBoundary(log));
  app.use(async (ctx, next) => {
    const site = resolveSite(ctx.hostname);
    ctx.state.site = site;
    // Brand subdomains, and any other name (a custom domain is looked up; an unknown one gets 404 there).
    if (site.kind === 'brand' || site.kind === 'unknown') return brand(ctx, site);
    await sites[site.kind](ctx, next);
  });

  const fastPath = createBrandFastPath({
    resolveSite,
    reader: services.siteReader,
    servedEvents,
    log,
    metrics,
    trustProxy: config.http.trustProxy,
  });
  const koaListener = app.callback();
  return {
    app,
    listener: (req, res) => {
      if (!fastPath(req, res)) void koaListener(req, res);
    },
    close: async () => {
      await endpoint.close();
      await servedEvents.close();
    },
  };
}
