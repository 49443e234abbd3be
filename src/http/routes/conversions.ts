/**
 * `POST {platform_url}/api/v1/conversions`: server-side conversions for the workspace of the credential
 * (`x-api-key` or an OAuth bearer token, like /api/mcp; editors and above). Answers `202` with
 * `{accepted, duplicates, rejected: [{index, reason}]}`; a malformed body is a `400` and records nothing.
 * Errors are `{error, error_description}`; the Origin rule (a foreign browser Origin → 403, preflight included)
 * and the per-credential rate limit are the tool server's.
 */
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { Authenticator } from '../../auth/authenticate.ts';
import { can } from '../../auth/permissions.ts';
import { actorOf, type Principal } from '../../auth/principal.ts';
import { workspaceScope } from '../../domain/shared/scope.ts';
import type { Config } from '../../config.ts';
import { readServerConversions } from '../../domain/analytics/server-conversions.ts';
import type { SiteEvent } from '../../domain/analytics/site-events.ts';
import type { RateLimiter, RateLimitPolicy } from '../../domain/rate-limits/rate-limiter.ts';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ForbiddenError, RequestRefusedError, ValidationError } from '../../errors.ts';
import { toolServerAuthentication, toolServerOriginCheck, toolServerPreflight } from '../middleware/authenticate.ts';
import { toolServerRateLimit } from '../middleware/rate-limit.ts';
import { NO_METRICS, type Metrics } from '../../observability/metrics.ts';

export const CONVERSIONS_PATH = '/api/v1/conversions';

export interface ConversionRouteDeps {
  config: Config;
  orm: MikroORM;
  authenticator: Authenticator;
  limiter: RateLimiter;
  rateLimit: RateLimitPolicy;
  recorder: { recordCounted(events: SiteEvent[]): Promise<number> };
  /** Counts the invalid conversions of a batch (the recorder counts the ones written). */
  metrics?: Pick<Metrics, 'analyticsRejected'>;
}

export function conversionRoutes(deps: ConversionRouteDeps): Router {
  const router = new Router();
  const parseBody = bodyParser({
    enableTypes: ['json'],
    jsonLimit: '256kb',
    encoding: 'utf-8',
    // A body over the limit keeps Koa's 413; anything else unreadable is the domain's validation error.
    onError: (error) => {
      if ((error as { status?: number }).status === 413) throw error;
      throw new ValidationError('Body must be JSON: {"conversions": [...]}');
    },
  });

  // The tool server's own Origin rule, authentication and rate limit (one budget per credential); their refusals
  // take the error boundary's default form, `{error, error_description}`.
  const originCheck = toolServerOriginCheck(deps.config);
  const authenticate = toolServerAuthentication(deps.config, deps.authenticator);
  const rateLimit = toolServerRateLimit(deps.limiter, deps.rateLimit);

  router.options(CONVERSIONS_PATH, toolServerPreflight(deps.config));
  router.post(CONVERSIONS_PATH, originCheck, authenticate, rateLimit, async (ctx) => {
    const principal = ctx.state.principal as Principal;
    if (!can(principal.role, 'content:write')) {
      throw new ForbiddenError(
        `Recording conversions needs the editor role or above; this credential is ${principal.role}`,
      );
    }
    if (!ctx.is('application/json')) {
      throw new RequestRefusedError('unsupported_media_type', 'Content-Type must be application/json');
    }
    await parseBody(ctx, async () => undefined);
    const scope = workspaceScope(deps.orm.em, principal.workspaceId, actorOf(principal));
    const { events, rejected } = await readServerConversions(scope, (ctx.request as { body?: unknown }).body);
    (deps.metrics ?? NO_METRICS).analyticsRejected('server_conversion', rejected.length);
    const accepted = events.length ? await deps.recorder.recordCounted(events) : 0;
    ctx.status = 202;
    ctx.body = { accepted, duplicates: events.length - accepted, rejected };
  });
  return router;
}
