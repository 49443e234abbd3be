/**
 * `GET {platform_url}/metrics`, only when `METRICS_TOKEN` is set and only to a bearer of it (see
 * observability/metrics-endpoint.ts for the separate listener, which production should prefer). A request
 * without the token is answered as an unknown path, so the endpoint does not advertise itself.
 */
import Router from '@koa/router';
import { metricsRequestAuthorized } from '../../observability/metrics-endpoint.ts';

export function metricsRoutes(deps: {
  token: string;
  scrape(): Promise<{ contentType: string; body: string }>;
}): Router {
  const router = new Router();
  router.get('/metrics', async (ctx, next) => {
    // Passed on as if this route did not exist: whatever answers an unknown path answers this request.
    if (!metricsRequestAuthorized(ctx.get('authorization') || undefined, deps.token)) return next();
    const { contentType, body } = await deps.scrape();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = contentType;
    ctx.body = body;
  });
  return router;
}
