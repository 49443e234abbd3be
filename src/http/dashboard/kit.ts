/**
 * The pieces every dashboard page group is built from: the session cookie, the HTML answer with its security
 * headers, the guards (session, CSRF, workspace membership and permission), the error form of a page, and the
 * one way a dashboard action writes its audit line.
 *
 * The guards run in a fixed order, written once in `workspaceAction`: session, then the form body, then its
 * CSRF token, then membership and permission, then the page's error form. A forged or foreign request is
 * refused before any handler reads its input.
 */
import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware } from 'koa';
import { can, type Permission } from '../../auth/permissions.ts';
import type { ConnectedAppsService } from '../../auth/oidc/connected-apps.ts';
import type { Container } from '../../container.ts';
import type { AuditRecord, AuditService } from '../../domain/audit/audit.service.ts';
import type { RateLimiter } from '../../domain/rate-limits/rate-limiter.ts';
import type { Session } from '../../domain/sessions/session.entity.ts';
import { SESSION_TTL_MS, type SessionsService } from '../../domain/sessions/sessions.service.ts';
import type { Role } from '../../domain/workspaces/roles.ts';
import { actors, workspaceScope, type Actor, type WorkspaceScope } from '../../domain/shared/scope.ts';
import type { AppError } from '../../errors.ts';
import { renderErrorsWith, renderJson } from '../middleware/error-boundary.ts';
import type { Csrf } from '../csrf.ts';
import { forbiddenPage, notFoundPage, type Chrome, type Notice } from './chrome.ts';
import { consoleCallerOf, consoleNotice, createConsoleTools } from './console-tools.ts';

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
  chrome: Chrome;
  workspace?: { id: string; name: string; role: Role };
}

/** What a signed-in page knows after its guards ran. */
export function state(ctx: Context): DashboardState {
  return ctx.state.dashboard as DashboardState;
}

/** Renders a page again with notices (after an action, or when it failed). */
export type PageRender = (ctx: Context, notices: Notice[]) => Promise<void>;

/**
 * An audit line of a dashboard request. The request's address and id are always added; the workspace defaults
 * to the page's workspace and the actor to the signed-in person (or `anonymous` before sign-in).
 */
export type DashboardAuditEntry = Omit<AuditRecord, 'ip' | 'requestId' | 'workspaceId' | 'actor'> &
  Partial<Pick<AuditRecord, 'workspaceId' | 'actor'>>;

export type DashboardKit = ReturnType<typeof createDashboardKit>;

export function createDashboardKit(deps: DashboardDeps) {
  const { container, sessions, audit, csrf } = deps;
  const secure = container.config.urls.platform.startsWith('https:');
  const em = () => container.orm.em.fork();
  const form = bodyParser({ enableTypes: ['form'], formLimit: '32kb' });
  const tools = createConsoleTools({ orm: container.orm, services: container.services, log: container.log });

  function writeSessionCookie(ctx: Context, value: string, maxAge: number) {
    ctx.cookies.set(SESSION_COOKIE, value, {
      httpOnly: true,
      sameSite: 'lax',
      secure,
      path: '/',
      maxAge,
      overwrite: true,
    });
  }

  /**
   * `allow` adds CSP directives for one page, each a deliberate decision commented where it is used (e.g. the
   * platform's own generated media, `img-src 'self'`, on a page that shows a film's storyboard).
   */
  function sendHtml(ctx: Context, body: string, status = 200, allow: readonly string[] = []) {
    ctx.status = status;
    ctx.type = 'html';
    ctx.set('cache-control', 'no-store');
    ctx.set(
      'content-security-policy',
      ["default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'", ...allow].join(
        '; ',
      ),
    );
    ctx.set('x-content-type-options', 'nosniff');
    ctx.set('referrer-policy', 'same-origin');
    ctx.body = body;
  }

  async function chromeFor(session: Session): Promise<Chrome> {
    const list = await container.services.workspaces.listForUser(em(), session.user.id);
    return {
      csrf: session.csrfToken,
      userEmail: session.user.getEntity().email,
      operator: session.user.getEntity().isOperator,
      workspaces: list.map(({ workspace, role }) => ({ id: workspace.id, name: workspace.name, role })),
    };
  }

  /** The session of the request's cookie, if it is still valid. */
  const sessionOf = (ctx: Context) => sessions.resolve(em(), ctx.cookies.get(SESSION_COOKIE));

  /** Pages that need a signed-in person. */
  const requireSession: Middleware = async (ctx, next) => {
    const session = await sessionOf(ctx);
    if (!session) {
      if (ctx.method === 'GET') {
        ctx.redirect(`/signin?next=${encodeURIComponent(ctx.originalUrl)}`);
      } else {
        // Answered here, not thrown: a person's browser shows this sentence, not the boundary's JSON.
        ctx.status = 401;
        ctx.body = 'Your session ended. Sign in again.';
      }
      return;
    }
    ctx.state.dashboard = {
      session,
      chrome: { ...(await chromeFor(session)), path: ctx.path },
    } satisfies DashboardState;
    await next();
  };

  /** POSTs of signed-in pages: the session's CSRF token and a same-origin request. */
  const requireCsrf: Middleware = async (ctx, next) => {
    const body = ctx.request.body as Record<string, unknown>;
    if (!csrf.verifySession(ctx, state(ctx).session.csrfToken, body?._csrf)) {
      sendHtml(
        ctx,
        forbiddenPage(
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
        sendHtml(ctx, notFoundPage(chrome, 'That workspace does not exist or you are not a member of it.'), 404);
        return;
      }
      const dash = state(ctx);
      dash.workspace = entry;
      dash.chrome = { ...chrome, current: entry };
      if (!can(entry.role, permission)) {
        sendHtml(ctx, forbiddenPage(dash.chrome, `Your role (${entry.role}) does not allow this.`), 403);
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
  function withNotices(render: PageRender, noticeOf: (error: AppError) => string = (error) => error.message) {
    return renderErrorsWith(async (ctx, error, status) => {
      if (error.code === 'internal_error' || error.code === 'bad_request') return renderJson(ctx, error, status);
      await render(ctx, [{ kind: 'error', text: noticeOf(error) }]);
      if (ctx.status < 400) ctx.status = status;
    });
  }

  return {
    ...deps,
    em,
    form,
    sendHtml,
    sessionOf,
    requireSession,
    requireCsrf,
    inWorkspace,
    withNotices,

    setSessionCookie: (ctx: Context, token: string) => writeSessionCookie(ctx, token, SESSION_TTL_MS),
    /** Signs the browser out: the session row is destroyed and the cookie cleared. */
    async endSession(ctx: Context) {
      await sessions.destroy(em(), ctx.cookies.get(SESSION_COOKIE));
      writeSessionCookie(ctx, '', 0);
    },

    /** The audit actor of the signed-in person. */
    actorOf: (ctx: Context): Actor => actors.user(state(ctx).session.user.id),

    /** The scope of a workspace page or action: the workspace in the URL, acting as the signed-in person. */
    scopeOf: (ctx: Context): WorkspaceScope =>
      workspaceScope(container.orm.em, state(ctx).workspace!.id, actors.user(state(ctx).session.user.id)),

    /** A workspace page (GET): a signed-in member whose role has `permission`. */
    workspacePage: (permission: Permission): Middleware[] => [requireSession, inWorkspace(permission)],

    /**
     * A workspace action (form POST), guarded in this order: session, form body, CSRF token, membership and
     * permission; a domain error then renders `page` again with the error as a notice.
     */
    workspaceAction: (permission: Permission, page: PageRender): Middleware[] => [
      requireSession,
      form,
      requireCsrf,
      inWorkspace(permission),
      withNotices(page),
    ],

    /**
     * Calls a tool action as the signed-in person on a workspace page: the same wrapper, permission check,
     * schemas, service and audit line as the agent's `tools/call` (console-tools.ts). An error result throws
     * its `AppError`, which `workspaceAction` renders as a notice.
     */
    tool: <T = Record<string, unknown>>(ctx: Context, name: string, args: Record<string, unknown>) =>
      tools.call<T>(consoleCallerOf(ctx), name, args).then((answer) => answer.structured),

    /** The MCP task operations (cancel a job) as the signed-in person on a workspace page (console-tools.ts). */
    tasks: (ctx: Context) => tools.tasks(consoleCallerOf(ctx)),

    /**
     * A form POST that acts through a tool (`kit.tool`): the guards check the session, CSRF token and
     * membership only, and the tool wrapper checks the role's permission, so a refusal is written to the audit
     * log as `denied` exactly as the same MCP call's would be. The refusal renders `page` with the error (403).
     */
    toolAction: (page: PageRender): Middleware[] => [
      requireSession,
      form,
      requireCsrf,
      inWorkspace('workspace:read'),
      withNotices(page, consoleNotice),
    ],

    /** Records a dashboard action in the audit log, in the same shape for every page. */
    async recordAudit(ctx: Context, entry: DashboardAuditEntry): Promise<void> {
      const dash = ctx.state.dashboard as DashboardState | undefined;
      await audit.record(em(), {
        workspaceId: dash?.workspace?.id ?? null,
        actor: dash ? `user:${dash.session.user.id}` : 'anonymous',
        ...entry,
        ip: ctx.ip,
        requestId: (ctx.state.requestId as string | undefined) ?? null,
      });
    },
  };
}
