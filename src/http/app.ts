/**
 * The one Koa application, dispatching by Host to the four sites: the root public site, the platform
 * (tool server + dashboard), the authorization server and brand sites. An unknown host gets 404 before any
 * other work (this is also what defeats DNS rebinding: a rebound name never matches a configured host).
 */
import Koa from 'koa';
import type Router from '@koa/router';
import { createAuthenticator } from '../auth/authenticate.ts';
import type { Container } from '../container.ts';
import { createMcpEndpoint, type McpEndpoint } from '../mcp/http-handler.ts';
import { createProfileResolver } from '../mcp/profile-resolver.ts';
import { createSiteResolver, type Site } from './hosts.ts';
import { errorBoundary } from './middleware/error-boundary.ts';
import { requestId } from './middleware/request-id.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { protectedResourceRoutes } from './routes/protected-resource.ts';

export interface HttpApp {
  app: Koa;
  close(): Promise<void>;
}

function mount(routers: Router[]): Koa.Middleware {
  const middlewares = routers.flatMap((router) => [
    router.routes(),
    router.allowedMethods(),
  ]) as unknown as Koa.Middleware[];
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
  const { config, log } = container;
  const app = new Koa({ proxy: config.http.trustProxy });
  const resolveSite = createSiteResolver(config);
  const endpoint: McpEndpoint = createMcpEndpoint({ orm: container.orm, services: container.services, log });
  const authenticator = createAuthenticator({ orm: container.orm });

  const platform = mount([
    protectedResourceRoutes(config),
    mcpRoutes({ config, authenticator, endpoint, profiles: createProfileResolver() }),
  ]);

  const sites: Partial<Record<Site['kind'], Koa.Middleware>> = { platform };

  app.use(requestId());
  app.use(errorBoundary(log));
  app.use(async (ctx, next) => {
    const site = resolveSite(ctx.hostname);
    ctx.state.site = site;
    const handler = sites[site.kind];
    if (!handler) {
      ctx.status = 404;
      ctx.body = { error: 'not_found', error_description: `No site is served at ${ctx.hostname || 'this host'}` };
      return;
    }
    await handler(ctx, next);
  });

  return {
    app,
    close: () => endpoint.close(),
  };
}
