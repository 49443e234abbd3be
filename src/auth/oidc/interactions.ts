/**
 * The authorization server's own pages: sign-in and consent (with the workspace picker), reached through
 * oidc-provider's interaction sessions at `/interaction/:uid`.
 *
 * Consent creates a Grant for exactly the scopes requested (within `openid`, `mcp:read`, `mcp:write`,
 * `offline_access`) on the MCP resource, and binds it to the workspace the person picked — a workspace they
 * are a member of, checked here again (never trust the form).
 */
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import type { Config } from '../../config.ts';
import type { AuditService } from '../../domain/audit/audit.service.ts';
import type { RateLimiter } from '../../domain/rate-limits/rate-limiter.ts';
import { authenticatePassword } from '../../domain/sessions/password-sign-in.ts';
import { Membership } from '../../domain/workspaces/membership.entity.ts';
import { User } from '../../domain/workspaces/user.entity.ts';
import type { Csrf } from '../../http/csrf.ts';
import type { Logger } from '../../logger.ts';
import { MCP_SCOPES } from '../scopes.ts';
import { issuesRefreshTokens } from './provider.ts';
import { nativeOnly } from './redirect-uris.ts';
import { OAuthGrantBinding } from './oidc.entities.ts';
import { consentPage, loginPage } from './views.ts';

export interface InteractionDeps {
  config: Config;
  orm: MikroORM;
  provider: Provider;
  csrf: Csrf;
  limiter: RateLimiter;
  audit: AuditService;
  log: Logger;
}

function requestedScopes(scopeParam: unknown): { resource: string[]; offline: boolean; openid: boolean } {
  const requested = new Set(
    String(scopeParam ?? '')
      .split(' ')
      .filter(Boolean),
  );
  const resource = MCP_SCOPES.filter((scope) => requested.has(scope));
  // A request naming no MCP scope gets read and write: authorization is by role, not by scope (spec).
  // (The provider has already refused any scope outside SUPPORTED_SCOPES.)
  return {
    resource: resource.length ? resource : [...MCP_SCOPES],
    offline: requested.has('offline_access'),
    openid: requested.has('openid'),
  };
}

/**
 * The authorization-server scopes a grant records: every requested scope the provider checks for consent.
 * Leaving one out (as `openid` once was) makes the provider ask for consent again after every Allow.
 */
function grantedOidcScopes(scopes: ReturnType<typeof requestedScopes>): string[] {
  return [...(scopes.openid ? ['openid'] : []), ...scopes.resource, ...(scopes.offline ? ['offline_access'] : [])];
}

/** What the consent page names as the receiver: the host, or for an app's private-use scheme the scheme. */
function redirectTarget(redirectUri: string): string {
  const url = URL.parse(redirectUri);
  if (!url) return redirectUri;
  return url.host || url.protocol;
}

export function interactionRoutes(deps: InteractionDeps): Router {
  const router = new Router({ prefix: '/interaction/:uid' });
  const form = bodyParser({ enableTypes: ['form'], formLimit: '16kb' });

  async function workspacesOf(userId: string) {
    const memberships = await deps.orm.em
      .fork()
      .find(
        Membership,
        { user: userId, workspace: { deletedAt: null } },
        { populate: ['workspace'], orderBy: { createdAt: 'asc' } },
      );
    return memberships.map((m) => ({
      id: m.workspace.id,
      name: m.workspace.getEntity().name,
      slug: m.workspace.getEntity().slug,
      role: m.role,
    }));
  }

  async function renderConsent(
    ctx: Context,
    details: Awaited<ReturnType<Provider['interactionDetails']>>,
    error?: string,
  ) {
    const accountId = details.session?.accountId;
    const user = accountId ? await deps.orm.em.fork().findOne(User, { id: accountId }) : null;
    const client = await deps.provider.Client.find(String(details.params.client_id));
    const redirectUri = String(details.params.redirect_uri ?? '');
    const scopes = requestedScopes(details.params.scope);
    ctx.type = 'html';
    ctx.body = consentPage({
      uid: details.uid,
      csrf: deps.csrf.anonymousToken(ctx),
      clientName: client?.clientName ?? 'An application',
      clientId: String(details.params.client_id),
      redirectHost: redirectTarget(redirectUri),
      onDeviceOnly: nativeOnly(client?.redirectUris ?? []),
      scopes: [...(scopes.openid ? ['openid'] : []), ...scopes.resource],
      // What the app may do while the person is away follows the refresh-token policy, not the scope asked.
      offlineAccess: client ? issuesRefreshTokens(client) : scopes.offline,
      userEmail: user?.email ?? '',
      workspaces: user ? await workspacesOf(user.id) : [],
      ...(error ? { error } : {}),
    });
  }

  router.get('/', async (ctx) => {
    const details = await deps.provider.interactionDetails(ctx.req, ctx.res);
    ctx.set('cache-control', 'no-store');
    if (details.prompt.name === 'login') {
      const client = await deps.provider.Client.find(String(details.params.client_id));
      ctx.type = 'html';
      ctx.body = loginPage({
        uid: details.uid,
        csrf: deps.csrf.anonymousToken(ctx),
        clientName: client?.clientName ?? 'An application',
      });
      return;
    }
    await renderConsent(ctx, details);
  });

  router.post('/login', form, async (ctx) => {
    const details = await deps.provider.interactionDetails(ctx.req, ctx.res);
    const body = ctx.request.body as Record<string, string>;
    const client = await deps.provider.Client.find(String(details.params.client_id));
    const clientName = client?.clientName ?? 'An application';
    if (!deps.csrf.verifyAnonymous(ctx, body._csrf)) {
      // Answered here, not thrown: a person's browser gets this form again with the error, not the boundary's JSON.
      ctx.status = 403;
      ctx.type = 'html';
      ctx.body = loginPage({
        uid: details.uid,
        csrf: deps.csrf.anonymousToken(ctx),
        clientName,
        error: 'The form expired. Please try again.',
      });
      return;
    }
    const outcome = await authenticatePassword(deps, String(body.email ?? ''), String(body.password ?? ''), ctx.ip);
    if ('error' in outcome) {
      await deps.audit.record(deps.orm.em.fork(), {
        workspaceId: null,
        actor: 'anonymous',
        action: 'session.sign_in',
        outcome: 'denied',
        details: { via: 'oauth', email: String(body.email ?? '').slice(0, 320), throttled: outcome.throttled },
        ip: ctx.ip,
      });
      // Answered here, not thrown: a person's browser gets this form again with the error, not the boundary's JSON.
      ctx.status = outcome.throttled ? 429 : 401;
      ctx.type = 'html';
      ctx.body = loginPage({
        uid: details.uid,
        csrf: deps.csrf.anonymousToken(ctx),
        clientName,
        email: String(body.email ?? ''),
        error: outcome.error,
      });
      return;
    }
    await deps.audit.record(deps.orm.em.fork(), {
      workspaceId: null,
      actor: `user:${outcome.user.id}`,
      action: 'session.sign_in',
      details: { via: 'oauth', clientId: String(details.params.client_id) },
      ip: ctx.ip,
    });
    await deps.provider.interactionFinished(
      ctx.req,
      ctx.res,
      { login: { accountId: outcome.user.id } },
      { mergeWithLastSubmission: false },
    );
  });

  router.post('/confirm', form, async (ctx) => {
    const details = await deps.provider.interactionDetails(ctx.req, ctx.res);
    const body = ctx.request.body as Record<string, string>;
    if (!deps.csrf.verifyAnonymous(ctx, body._csrf)) {
      // Answered here, not thrown: a person's browser gets this form again with the error, not the boundary's JSON.
      ctx.status = 403;
      await renderConsent(ctx, details, 'The form expired. Please try again.');
      return;
    }
    const accountId = details.session?.accountId;
    if (!accountId || details.prompt.name !== 'consent') {
      // Answered here, not thrown: a person's browser gets this form again with the error, not the boundary's JSON.
      ctx.status = 400;
      await renderConsent(ctx, details, 'Please sign in again.');
      return;
    }
    const workspaces = await workspacesOf(accountId);
    const chosen = workspaces.find((workspace) => workspace.id === body.workspace);
    if (!chosen) {
      // Answered here, not thrown: a person's browser gets this form again with the error, not the boundary's JSON.
      ctx.status = 400;
      await renderConsent(ctx, details, 'Choose one of your workspaces for this connection.');
      return;
    }
    const clientId = String(details.params.client_id);
    const client = await deps.provider.Client.find(clientId);
    const scopes = requestedScopes(details.params.scope);
    const grant = new deps.provider.Grant({ accountId, clientId });
    // The MCP scopes are advertised as authorization-server scopes too (so they appear in the metadata), so
    // the grant records them on both sides: as requested scopes and as scopes of the MCP resource.
    grant.addOIDCScope(grantedOidcScopes(scopes).join(' '));
    grant.addResourceScope(deps.config.urls.mcp, scopes.resource.join(' '));
    const grantId = await grant.save();
    const em = deps.orm.em.fork();
    em.create(OAuthGrantBinding, {
      grantId,
      workspace: chosen.id,
      user: accountId,
      clientId,
      clientName: client?.clientName?.slice(0, 200) ?? null,
      scopes: grantedOidcScopes(scopes),
      lastUsedAt: null,
      revokedAt: null,
    });
    await em.flush();
    await deps.audit.record(em, {
      workspaceId: chosen.id,
      actor: `user:${accountId}`,
      action: 'oauth.grant',
      targetType: 'oauth_client',
      targetId: clientId,
      details: {
        clientName: client?.clientName ?? null,
        scopes: scopes.resource,
        offlineAccess: scopes.offline,
        grantId,
      },
      ip: ctx.ip,
    });
    await deps.provider.interactionFinished(
      ctx.req,
      ctx.res,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
  });

  router.post('/abort', form, async (ctx) => {
    const body = ctx.request.body as Record<string, string>;
    if (!deps.csrf.verifyAnonymous(ctx, body._csrf)) {
      // Answered here, not thrown: a person's browser shows this sentence, not the boundary's JSON.
      ctx.status = 403;
      ctx.body = 'The form expired. Please go back and try again.';
      return;
    }
    await deps.provider.interactionFinished(
      ctx.req,
      ctx.res,
      { error: 'access_denied', error_description: 'The person declined to connect this app' },
      { mergeWithLastSubmission: false },
    );
  });

  return router;
}
