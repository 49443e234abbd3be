/**
 * The human dashboard on the platform host: sign up, sign in and out; workspaces, members and roles; API keys
 * (secret shown once); custom domains of the brand site; connected apps; the audit log; credits.
 *
 * Every page needs a session (HttpOnly cookie, server-side row), every POST a valid CSRF token, every
 * workspace page a membership (another workspace answers exactly like a missing one) and the permission its
 * action needs. Actions that change access land in the audit log.
 */
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware } from 'koa';
import { can, type Permission } from '../../auth/permissions.ts';
import { authenticatePassword } from '../../domain/sessions/password-sign-in.ts';
import type { ConnectedAppsService } from '../../auth/oidc/connected-apps.ts';
import type { Container } from '../../container.ts';
import type { AuditService } from '../../domain/audit/audit.service.ts';
import { MAX_CUSTOM_DOMAINS_PER_WORKSPACE } from '../../domain/brand/custom-domains.service.ts';
import type { RateLimiter } from '../../domain/rate-limits/rate-limiter.ts';
import type { Session } from '../../domain/sessions/session.entity.ts';
import { SESSION_TTL_MS, type SessionsService } from '../../domain/sessions/sessions.service.ts';
import { assertMayAssignRole } from '../../domain/workspaces/membership-policy.ts';
import { isRole, type Role } from '../../domain/workspaces/roles.ts';
import { type AppError, ValidationError } from '../../errors.ts';
import { renderErrorsWith, renderJson } from '../middleware/error-boundary.ts';
import { PROFILES } from '../../mcp/profiles.ts';
import type { Csrf } from '../csrf.ts';
import { brandSiteUrl } from '../hosts.ts';
import * as views from '../views/dashboard-views.ts';

const SESSION_COOKIE = 'cp_session';

export interface DashboardDeps {
  container: Container;
  sessions: SessionsService;
  audit: AuditService;
  connectedApps: ConnectedAppsService;
  limiter: RateLimiter;
  csrf: Csrf;
  /** Revokes every OAuth grant of a workspace (workspace deletion). */
  revokeWorkspaceGrants(workspaceId: string): Promise<void>;
}

interface DashboardState {
  session: Session;
  chrome: views.Chrome;
  workspace?: { id: string; name: string; role: Role };
}

function state(ctx: Context): DashboardState {
  return ctx.state.dashboard as DashboardState;
}

function safeNext(value: unknown): string {
  return typeof value === 'string' && /^\/(?!\/)[A-Za-z0-9/_\-?=&%.]*$/.test(value) ? value : '/workspaces';
}

export function dashboardRoutes(deps: DashboardDeps): Router {
  const { container, sessions, audit, csrf } = deps;
  const { orm, config } = container;
  const { workspaces, credits } = container.services;
  const secure = config.urls.platform.startsWith('https:');
  const router = new Router();
  const form = bodyParser({ enableTypes: ['form'], formLimit: '32kb' });
  const em = () => orm.em.fork();

  function setSessionCookie(ctx: Context, token: string) {
    ctx.cookies.set(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'lax',
      secure,
      path: '/',
      maxAge: SESSION_TTL_MS,
      overwrite: true,
    });
  }

  function sendHtml(ctx: Context, body: string, status = 200) {
    ctx.status = status;
    ctx.type = 'html';
    ctx.set('cache-control', 'no-store');
    ctx.set(
      'content-security-policy',
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    );
    ctx.set('x-content-type-options', 'nosniff');
    ctx.set('referrer-policy', 'same-origin');
    ctx.body = body;
  }

  async function chromeFor(
    session: Session,
    current?: { id: string; name: string; role: Role },
  ): Promise<views.Chrome> {
    const list = await workspaces.listForUser(em(), session.user.id);
    return {
      csrf: session.csrfToken,
      userEmail: session.user.getEntity().email,
      operator: session.user.getEntity().isOperator,
      workspaces: list.map(({ workspace, role }) => ({ id: workspace.id, name: workspace.name, role })),
      ...(current ? { current } : {}),
    };
  }

  /** Pages that need a signed-in person. */
  const requireSession: Middleware = async (ctx, next) => {
    const session = await sessions.resolve(em(), ctx.cookies.get(SESSION_COOKIE));
    if (!session) {
      if (ctx.method === 'GET') {
        ctx.redirect(`/signin?next=${encodeURIComponent(ctx.originalUrl)}`);
      } else {
        ctx.status = 401;
        ctx.body = 'Your session ended. Sign in again.';
      }
      return;
    }
    ctx.state.dashboard = { session, chrome: await chromeFor(session) } satisfies DashboardState;
    await next();
  };

  /** POSTs of signed-in pages: the session's CSRF token and a same-origin request. */
  const requireCsrf: Middleware = async (ctx, next) => {
    const body = ctx.request.body as Record<string, unknown>;
    if (!csrf.verifySession(ctx, state(ctx).session.csrfToken, body?._csrf)) {
      sendHtml(
        ctx,
        views.forbiddenPage(
          state(ctx).chrome,
          'The form expired or came from another site. Go back, reload the page and try again.',
        ),
        403,
      );
      return;
    }
    await next();
  };

  /** Workspace pages: membership (else "not found") and the permission the page needs (else 403). */
  function inWorkspace(permission: Permission): Middleware {
    return async (ctx, next) => {
      const { session, chrome } = state(ctx);
      const entry = chrome.workspaces.find((w) => w.id === ctx.params.workspaceId);
      if (!entry) {
        sendHtml(ctx, views.notFoundPage(chrome, 'That workspace does not exist or you are not a member of it.'), 404);
        return;
      }
      const dash = state(ctx);
      dash.workspace = entry;
      dash.chrome = { ...chrome, current: entry };
      if (!can(entry.role, permission)) {
        sendHtml(ctx, views.forbiddenPage(dash.chrome, `Your role (${entry.role}) does not allow this.`), 403);
        return;
      }
      if (session.currentWorkspaceId !== entry.id) await sessions.setCurrentWorkspace(em(), session, entry.id);
      await next();
    };
  }

  /**
   * The error form of a dashboard POST (registered with the error boundary, error-boundary.ts): a domain error
   * renders the page again with a notice, instead of an error page. Internal errors and unreadable requests keep
   * the boundary's plain answer.
   */
  function withNotices(
    render: (ctx: Context, notices: views.Notice[]) => Promise<void>,
    noticeOf: (error: AppError) => string = (error) => error.message,
  ) {
    return renderErrorsWith(async (ctx, error, status) => {
      if (error.code === 'internal_error' || error.code === 'bad_request') return renderJson(ctx, error, status);
      await render(ctx, [{ kind: 'error', text: noticeOf(error) }]);
      if (ctx.status < 400) ctx.status = status;
    });
  }

  const actorOf = (ctx: Context) => `user:${state(ctx).session.user.id}`;

  // --- anonymous pages ---------------------------------------------------------------------------------

  router.get('/', async (ctx) => {
    const session = await sessions.resolve(em(), ctx.cookies.get(SESSION_COOKIE));
    ctx.redirect(
      session ? (session.currentWorkspaceId ? `/w/${session.currentWorkspaceId}` : '/workspaces') : '/signin',
    );
  });

  router.get('/signup', (ctx) => sendHtml(ctx, views.signUpPage({ csrf: csrf.anonymousToken(ctx) })));

  // A taken email gets the same answer shape as other problems, without confirming who has an account.
  const signUpNotices = withNotices(
    async (ctx, notices) => {
      const body = ctx.request.body as Record<string, string>;
      sendHtml(ctx, views.signUpPage({ csrf: csrf.anonymousToken(ctx), email: body.email, name: body.name, notices }));
    },
    (error) =>
      error.code === 'conflict' ? 'An account with that email already exists. Sign in instead.' : error.message,
  );

  router.post('/signup', form, signUpNotices, async (ctx) => {
    const body = ctx.request.body as Record<string, string>;
    const again = (notices: views.Notice[], status: number) =>
      sendHtml(
        ctx,
        views.signUpPage({ csrf: csrf.anonymousToken(ctx), email: body.email, name: body.name, notices }),
        status,
      );
    if (!csrf.verifyAnonymous(ctx, body._csrf))
      return again([{ kind: 'error', text: 'The form expired. Please try again.' }], 403);
    const throttle = await deps.limiter.consume({ name: 'sign-up-ip', limit: 20, windowSeconds: 3600 }, ctx.ip);
    if (!throttle.allowed)
      return again([{ kind: 'error', text: 'Too many sign-ups from your network. Try again later.' }], 429);
    const user = await workspaces.createUser(em(), {
      email: body.email ?? '',
      name: body.name ?? '',
      password: body.password ?? '',
    });
    const { token } = await sessions.create(em(), user, { userAgent: ctx.get('user-agent'), ip: ctx.ip });
    setSessionCookie(ctx, token);
    await audit.record(em(), {
      workspaceId: null,
      actor: `user:${user.id}`,
      action: 'account.sign_up',
      ip: ctx.ip,
      requestId: ctx.state.requestId,
    });
    ctx.redirect('/workspaces');
  });

  router.get('/signin', (ctx) =>
    sendHtml(ctx, views.signInPage({ csrf: csrf.anonymousToken(ctx), next: safeNext(ctx.query.next) })),
  );

  router.post('/signin', form, async (ctx) => {
    const body = ctx.request.body as Record<string, string>;
    const again = (text: string, status: number) =>
      sendHtml(
        ctx,
        views.signInPage({
          csrf: csrf.anonymousToken(ctx),
          email: body.email,
          next: safeNext(body.next),
          notices: [{ kind: 'error', text }],
        }),
        status,
      );
    if (!csrf.verifyAnonymous(ctx, body._csrf)) return again('The form expired. Please try again.', 403);
    const outcome = await authenticatePassword(
      { orm, limiter: deps.limiter },
      String(body.email ?? ''),
      String(body.password ?? ''),
      ctx.ip,
    );
    if ('error' in outcome) {
      await audit.record(em(), {
        workspaceId: null,
        actor: 'anonymous',
        action: 'session.sign_in',
        outcome: 'denied',
        details: { via: 'dashboard', email: String(body.email ?? '').slice(0, 320), throttled: outcome.throttled },
        ip: ctx.ip,
        requestId: ctx.state.requestId,
      });
      return again(outcome.error, outcome.throttled ? 429 : 401);
    }
    const { token } = await sessions.create(em(), outcome.user, { userAgent: ctx.get('user-agent'), ip: ctx.ip });
    setSessionCookie(ctx, token);
    await audit.record(em(), {
      workspaceId: null,
      actor: `user:${outcome.user.id}`,
      action: 'session.sign_in',
      details: { via: 'dashboard' },
      ip: ctx.ip,
      requestId: ctx.state.requestId,
    });
    ctx.redirect(safeNext(body.next));
  });

  // --- signed-in pages ---------------------------------------------------------------------------------

  router.post('/signout', requireSession, form, requireCsrf, async (ctx) => {
    await sessions.destroy(em(), ctx.cookies.get(SESSION_COOKIE));
    ctx.cookies.set(SESSION_COOKIE, '', {
      httpOnly: true,
      sameSite: 'lax',
      secure,
      path: '/',
      maxAge: 0,
      overwrite: true,
    });
    ctx.redirect('/signin');
  });

  router.get('/switch', requireSession, async (ctx) => {
    ctx.redirect(`/w/${encodeURIComponent(String(ctx.query.workspace ?? ''))}`);
  });

  router.get('/workspaces', requireSession, (ctx) => sendHtml(ctx, views.workspacesPage(state(ctx).chrome)));

  router.post(
    '/workspaces',
    requireSession,
    form,
    requireCsrf,
    withNotices(async (ctx, notices) => sendHtml(ctx, views.workspacesPage(state(ctx).chrome, notices), 400)),
    async (ctx) => {
      const body = ctx.request.body as Record<string, string>;
      const workspace = await workspaces.createWorkspace(em(), {
        name: body.name ?? '',
        ownerUserId: state(ctx).session.user.id,
      });
      await audit.record(em(), {
        workspaceId: workspace.id,
        actor: actorOf(ctx),
        action: 'workspace.create',
        targetType: 'workspace',
        targetId: workspace.id,
        details: { name: workspace.name },
        ip: ctx.ip,
      });
      ctx.redirect(`/w/${workspace.id}`);
    },
  );

  const overview = async (ctx: Context, notices: views.Notice[] = []) => {
    const ws = state(ctx).workspace!;
    const workspace = await workspaces.requireWorkspace(em(), ws.id);
    sendHtml(
      ctx,
      views.overviewPage(
        state(ctx).chrome,
        {
          slug: workspace.slug,
          credits: await credits.balance(em(), ws.id),
          mcpUrl: config.urls.mcp,
          brandSiteUrl: brandSiteUrl(config, workspace.slug),
        },
        notices,
      ),
    );
  };
  router.get('/w/:workspaceId', requireSession, inWorkspace('workspace:read'), (ctx) => overview(ctx));

  router.post(
    '/w/:workspaceId/delete',
    requireSession,
    form,
    requireCsrf,
    inWorkspace('workspace:delete'),
    withNotices(overview),
    async (ctx) => {
      const ws = state(ctx).workspace!;
      const body = ctx.request.body as Record<string, string>;
      await workspaces.softDelete(em(), ws.id, String(body.confirm ?? ''));
      await deps.revokeWorkspaceGrants(ws.id);
      await audit.record(em(), {
        workspaceId: ws.id,
        actor: actorOf(ctx),
        action: 'workspace.delete',
        targetType: 'workspace',
        targetId: ws.id,
        ip: ctx.ip,
      });
      ctx.redirect('/workspaces');
    },
  );

  // Members
  const members = async (ctx: Context, notices: views.Notice[] = []) => {
    const ws = state(ctx).workspace!;
    sendHtml(
      ctx,
      views.membersPage(
        state(ctx).chrome,
        await workspaces.listMembers(em(), ws.id),
        state(ctx).session.user.id,
        notices,
      ),
    );
  };
  router.get('/w/:workspaceId/members', requireSession, inWorkspace('workspace:read'), (ctx) => members(ctx));

  router.post(
    '/w/:workspaceId/members',
    requireSession,
    form,
    requireCsrf,
    inWorkspace('members:manage'),
    withNotices(members),
    async (ctx) => {
      const ws = state(ctx).workspace!;
      const body = ctx.request.body as Record<string, string>;
      if (!isRole(body.role)) throw new ValidationError('Choose a role: owner, admin, editor or viewer');
      const target = await workspaces.findUserByEmail(em(), String(body.email ?? ''));
      if (!target)
        throw new ValidationError('No account uses that email. Ask the person to sign up first, then add them.');
      const current = await workspaces.membershipOf(em(), ws.id, target.id);
      assertMayAssignRole(
        { userId: state(ctx).session.user.id, role: ws.role },
        { userId: target.id, currentRole: current?.role ?? null },
        body.role,
      );
      const { created } = await workspaces.setMember(em(), ws.id, { email: target.email, role: body.role });
      await audit.record(em(), {
        workspaceId: ws.id,
        actor: actorOf(ctx),
        action: created ? 'member.add' : 'member.change_role',
        targetType: 'user',
        targetId: target.id,
        details: { email: target.email, role: body.role, previousRole: current?.role ?? null },
        ip: ctx.ip,
      });
      await members(ctx, [
        {
          kind: 'ok',
          text: created ? `Added ${target.email} as ${body.role}.` : `${target.email} is now ${body.role}.`,
        },
      ]);
    },
  );

  router.post(
    '/w/:workspaceId/members/:userId/remove',
    requireSession,
    form,
    requireCsrf,
    inWorkspace('members:manage'),
    withNotices(members),
    async (ctx) => {
      const ws = state(ctx).workspace!;
      const current = await workspaces.membershipOf(em(), ws.id, ctx.params.userId!);
      if (!current) throw new ValidationError('That person is not a member');
      assertMayAssignRole(
        { userId: state(ctx).session.user.id, role: ws.role },
        { userId: ctx.params.userId!, currentRole: current.role },
        null,
      );
      const removed = await workspaces.removeMember(em(), ws.id, ctx.params.userId!);
      await audit.record(em(), {
        workspaceId: ws.id,
        actor: actorOf(ctx),
        action: 'member.remove',
        targetType: 'user',
        targetId: ctx.params.userId!,
        details: { role: removed.role },
        ip: ctx.ip,
      });
      await members(ctx, [{ kind: 'ok', text: 'Member removed.' }]);
    },
  );

  // API keys
  const keys = async (ctx: Context, notices: views.Notice[] = [], created?: { name: string; secret: string }) => {
    const ws = state(ctx).workspace!;
    sendHtml(ctx, views.apiKeysPage(state(ctx).chrome, await workspaces.listApiKeys(em(), ws.id), created, notices));
  };
  router.get('/w/:workspaceId/keys', requireSession, inWorkspace('keys:manage'), (ctx) => keys(ctx));

  router.post(
    '/w/:workspaceId/keys',
    requireSession,
    form,
    requireCsrf,
    inWorkspace('keys:manage'),
    withNotices(keys),
    async (ctx) => {
      const ws = state(ctx).workspace!;
      const body = ctx.request.body as Record<string, string>;
      if (!isRole(body.role)) throw new ValidationError('Choose a role for the key');
      const { key, secret } = await workspaces.createApiKey(em(), ws.id, {
        name: body.name ?? '',
        role: body.role,
        createdByUserId: state(ctx).session.user.id,
      });
      await audit.record(em(), {
        workspaceId: ws.id,
        actor: actorOf(ctx),
        action: 'api_key.create',
        targetType: 'api_key',
        targetId: key.id,
        details: { name: key.name, role: key.role, prefix: key.prefix },
        ip: ctx.ip,
      });
      // The secret goes into this one response and nowhere else (not a redirect, not a log, not the database).
      await keys(ctx, [], { name: key.name, secret });
    },
  );

  router.post(
    '/w/:workspaceId/keys/:keyId/disable',
    requireSession,
    form,
    requireCsrf,
    inWorkspace('keys:manage'),
    withNotices(keys),
    async (ctx) => {
      const ws = state(ctx).workspace!;
      const key = await workspaces.disableApiKey(em(), ws.id, ctx.params.keyId!);
      await audit.record(em(), {
        workspaceId: ws.id,
        actor: actorOf(ctx),
        action: 'api_key.disable',
        targetType: 'api_key',
        targetId: key.id,
        details: { name: key.name },
        ip: ctx.ip,
      });
      await keys(ctx, [{ kind: 'ok', text: `Disabled “${key.name}”. It stopped working at once.` }]);
    },
  );

  // Custom domains: who may point a domain at the brand site is an admin matter, like API keys.
  const manageDomains: Permission = 'domains:manage';
  const domainScope = (ctx: Context) => ({
    workspaceId: state(ctx).workspace!.id,
    em: em(),
    actor: actorOf(ctx),
  });
  const requestFacts = (ctx: Context) => ({ ip: ctx.ip, requestId: (ctx.state.requestId as string) ?? null });
  const customDomains = async (ctx: Context, notices: views.Notice[] = []) => {
    const ws = state(ctx).workspace!;
    const workspace = await workspaces.requireWorkspace(em(), ws.id);
    sendHtml(
      ctx,
      views.customDomainsPage(
        state(ctx).chrome,
        {
          domains: await container.services.customDomains.list(domainScope(ctx)),
          brandSiteHost: new URL(brandSiteUrl(config, workspace.slug)).hostname,
          maxDomains: MAX_CUSTOM_DOMAINS_PER_WORKSPACE,
        },
        notices,
      ),
    );
  };
  router.get('/w/:workspaceId/domains', requireSession, inWorkspace(manageDomains), (ctx) => customDomains(ctx));

  router.post(
    '/w/:workspaceId/domains',
    requireSession,
    form,
    requireCsrf,
    inWorkspace(manageDomains),
    withNotices(customDomains),
    async (ctx) => {
      const body = ctx.request.body as Record<string, string>;
      const domain = await container.services.customDomains.add(
        domainScope(ctx),
        String(body.hostname ?? ''),
        requestFacts(ctx),
      );
      await customDomains(ctx, [
        { kind: 'ok', text: `Added ${domain.hostname}. Publish one of the proofs below, then verify it.` },
      ]);
    },
  );

  router.post(
    '/w/:workspaceId/domains/:domainId/verify',
    requireSession,
    form,
    requireCsrf,
    inWorkspace(manageDomains),
    withNotices(customDomains),
    async (ctx) => {
      const { domain, verified, method } = await container.services.customDomains.verify(
        domainScope(ctx),
        ctx.params.domainId!,
        requestFacts(ctx),
      );
      await customDomains(ctx, [
        verified
          ? {
              kind: 'ok',
              text: method
                ? `${domain.hostname} is verified (${method === 'dns' ? 'DNS TXT record' : 'HTTP token file'}). It serves the brand site now; pages are being republished with it as their address.`
                : `${domain.hostname} was already verified.`,
            }
          : { kind: 'error', text: `${domain.hostname} is not verified yet: ${domain.lastError ?? 'no proof found'}` },
      ]);
    },
  );

  router.post(
    '/w/:workspaceId/domains/:domainId/remove',
    requireSession,
    form,
    requireCsrf,
    inWorkspace(manageDomains),
    withNotices(customDomains),
    async (ctx) => {
      const domain = await container.services.customDomains.remove(
        domainScope(ctx),
        ctx.params.domainId!,
        requestFacts(ctx),
      );
      await customDomains(ctx, [
        { kind: 'ok', text: `Removed ${domain.hostname}. It no longer serves the brand site.` },
      ]);
    },
  );

  // Connected apps
  const apps = async (ctx: Context, notices: views.Notice[] = []) => {
    const ws = state(ctx).workspace!;
    sendHtml(ctx, views.connectedAppsPage(state(ctx).chrome, await deps.connectedApps.list(em(), ws.id), notices));
  };
  router.get('/w/:workspaceId/apps', requireSession, inWorkspace('apps:manage'), (ctx) => apps(ctx));

  router.post(
    '/w/:workspaceId/apps/:grantId/revoke',
    requireSession,
    form,
    requireCsrf,
    inWorkspace('apps:manage'),
    withNotices(apps),
    async (ctx) => {
      const ws = state(ctx).workspace!;
      const binding = await deps.connectedApps.revoke(em(), ws.id, ctx.params.grantId!);
      await audit.record(em(), {
        workspaceId: ws.id,
        actor: actorOf(ctx),
        action: 'oauth.revoke',
        targetType: 'oauth_client',
        targetId: binding.clientId,
        details: { grantId: binding.grantId, via: 'dashboard' },
        ip: ctx.ip,
      });
      await apps(ctx, [{ kind: 'ok', text: `Revoked ${binding.clientName ?? binding.clientId}.` }]);
    },
  );

  // Audit log
  router.get('/w/:workspaceId/audit', requireSession, inWorkspace('audit:read'), async (ctx) => {
    const ws = state(ctx).workspace!;
    const before = typeof ctx.query.before === 'string' ? ctx.query.before.split('~') : null;
    const events = await audit.list(em(), ws.id, {
      limit: 50,
      ...(before && before.length === 2 && !Number.isNaN(Date.parse(before[0]!))
        ? { before: { createdAt: new Date(before[0]!), id: before[1]! } }
        : {}),
    });
    const last = events.at(-1);
    sendHtml(
      ctx,
      views.auditPage(
        state(ctx).chrome,
        events,
        events.length === 50 && last ? `/w/${ws.id}/audit?before=${encodeURIComponent(`${last.at}~${last.id}`)}` : null,
      ),
    );
  });

  // Credits
  router.get('/w/:workspaceId/credits', requireSession, inWorkspace('workspace:read'), async (ctx) => {
    const ws = state(ctx).workspace!;
    const balance = await credits.balance(em(), ws.id);
    const entries = can(ws.role, 'credits:manage')
      ? (await credits.history(em(), ws.id, 100)).map((e) => ({
          at: e.createdAt.toISOString(),
          kind: e.kind,
          amount: e.amount,
          from: e.fromAccount,
          to: e.toAccount,
          description: e.description ?? null,
          actor: e.actor,
        }))
      : null;
    sendHtml(ctx, views.creditsPage(state(ctx).chrome, balance, entries));
  });

  // Operator pages: call codes (platform operators only; everyone else gets "not found").
  const requireOperator: Middleware = async (ctx, next) => {
    if (!state(ctx).session.user.getEntity().isOperator) {
      sendHtml(ctx, views.notFoundPage(state(ctx).chrome, 'There is no such page.'), 404);
      return;
    }
    await next();
  };
  const selectable = PROFILES.filter((p) => p.requiresCallCode);
  const callCodes = async (ctx: Context, notices: views.Notice[] = [], issued?: { code: string; profile: string }) => {
    const codes = await container.services.callCodes.list(em());
    sendHtml(ctx, views.callCodesPage(state(ctx).chrome, { codes, profiles: selectable, issued }, notices));
  };
  router.get('/operator/call-codes', requireSession, requireOperator, (ctx) => callCodes(ctx));

  router.post(
    '/operator/call-codes',
    requireSession,
    requireOperator,
    form,
    requireCsrf,
    withNotices(callCodes),
    async (ctx) => {
      const body = ctx.request.body as Record<string, string>;
      const workspaceId = body.workspaceId?.trim() || null;
      if (workspaceId) await workspaces.requireWorkspace(em(), workspaceId);
      const { code, callCode } = await container.services.callCodes.issue(
        em(),
        { profile: body.profile ?? '', workspaceId, note: body.note?.trim() || null },
        actorOf(ctx),
      );
      // The code goes into this one response only (never a redirect, a log or the database).
      await callCodes(ctx, [], { code, profile: callCode.profile });
    },
  );

  router.post(
    '/operator/call-codes/:id/revoke',
    requireSession,
    requireOperator,
    form,
    requireCsrf,
    withNotices(callCodes),
    async (ctx) => {
      const callCode = await container.services.callCodes.revoke(em(), ctx.params.id!);
      await callCodes(ctx, [
        {
          kind: 'ok',
          text: `Revoked ${callCode.prefix}… (${callCode.profile}); connections using it fall back to the discovery profile.`,
        },
      ]);
    },
  );

  return router;
}
