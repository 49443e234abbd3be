/**
 * The account pages: sign up, sign in and out, and the entry redirects (`/`, the workspace switcher). Sign-up
 * and sign-in are anonymous forms with their own CSRF token and rate limits; both land in the audit log.
 */
import type Router from '@koa/router';
import { authenticatePassword } from '../../domain/sessions/password-sign-in.ts';
import { html, page } from '../../views/html.ts';
import type { Notice } from './chrome.ts';
import type { DashboardKit } from './kit.ts';

function safeNext(value: unknown): string {
  return typeof value === 'string' && /^\/(?!\/)[A-Za-z0-9/_\-?=&%.]*$/.test(value) ? value : '/workspaces';
}

export function accountRoutes(router: Router, kit: DashboardKit): void {
  const { csrf, em, form, sendHtml, requireSession, requireCsrf, withNotices } = kit;
  const { workspaces } = kit.container.services;

  router.get('/', async (ctx) => {
    const session = await kit.sessionOf(ctx);
    ctx.redirect(
      session ? (session.currentWorkspaceId ? `/w/${session.currentWorkspaceId}` : '/workspaces') : '/signin',
    );
  });

  router.get('/signup', (ctx) => sendHtml(ctx, signUpPage({ csrf: csrf.anonymousToken(ctx) })));

  // A taken email gets the same answer shape as other problems, without confirming who has an account.
  const signUpNotices = withNotices(
    async (ctx, notices) => {
      const body = ctx.request.body as Record<string, string>;
      sendHtml(ctx, signUpPage({ csrf: csrf.anonymousToken(ctx), email: body.email, name: body.name, notices }));
    },
    (error) =>
      error.code === 'conflict' ? 'An account with that email already exists. Sign in instead.' : error.message,
  );

  router.post('/signup', form, signUpNotices, async (ctx) => {
    const body = ctx.request.body as Record<string, string>;
    const again = (notices: Notice[], status: number) =>
      sendHtml(
        ctx,
        signUpPage({ csrf: csrf.anonymousToken(ctx), email: body.email, name: body.name, notices }),
        status,
      );
    if (!csrf.verifyAnonymous(ctx, body._csrf))
      return again([{ kind: 'error', text: 'The form expired. Please try again.' }], 403);
    const throttle = await kit.limiter.consume({ name: 'sign-up-ip', limit: 20, windowSeconds: 3600 }, ctx.ip);
    if (!throttle.allowed)
      return again([{ kind: 'error', text: 'Too many sign-ups from your network. Try again later.' }], 429);
    const user = await workspaces.createUser(em(), {
      email: body.email ?? '',
      name: body.name ?? '',
      password: body.password ?? '',
    });
    const { token } = await kit.sessions.create(em(), user, { userAgent: ctx.get('user-agent'), ip: ctx.ip });
    kit.setSessionCookie(ctx, token);
    await kit.recordAudit(ctx, { actor: `user:${user.id}`, action: 'account.sign_up' });
    ctx.redirect('/workspaces');
  });

  router.get('/signin', (ctx) =>
    sendHtml(ctx, signInPage({ csrf: csrf.anonymousToken(ctx), next: safeNext(ctx.query.next) })),
  );

  router.post('/signin', form, async (ctx) => {
    const body = ctx.request.body as Record<string, string>;
    const again = (text: string, status: number) =>
      sendHtml(
        ctx,
        signInPage({
          csrf: csrf.anonymousToken(ctx),
          email: body.email,
          next: safeNext(body.next),
          notices: [{ kind: 'error', text }],
        }),
        status,
      );
    if (!csrf.verifyAnonymous(ctx, body._csrf)) return again('The form expired. Please try again.', 403);
    const outcome = await authenticatePassword(
      { orm: kit.container.orm, limiter: kit.limiter },
      String(body.email ?? ''),
      String(body.password ?? ''),
      ctx.ip,
    );
    if ('error' in outcome) {
      await kit.recordAudit(ctx, {
        action: 'session.sign_in',
        outcome: 'denied',
        details: { via: 'dashboard', email: String(body.email ?? '').slice(0, 320), throttled: outcome.throttled },
      });
      return again(outcome.error, outcome.throttled ? 429 : 401);
    }
    const { token } = await kit.sessions.create(em(), outcome.user, { userAgent: ctx.get('user-agent'), ip: ctx.ip });
    kit.setSessionCookie(ctx, token);
    await kit.recordAudit(ctx, {
      actor: `user:${outcome.user.id}`,
      action: 'session.sign_in',
      details: { via: 'dashboard' },
    });
    ctx.redirect(safeNext(body.next));
  });

  router.post('/signout', requireSession, form, requireCsrf, async (ctx) => {
    await kit.endSession(ctx);
    ctx.redirect('/signin');
  });

  router.get('/switch', requireSession, async (ctx) => {
    ctx.redirect(`/w/${encodeURIComponent(String(ctx.query.workspace ?? ''))}`);
  });
}

export function signUpPage(view: { csrf: string; email?: string; name?: string; notices?: Notice[] }): string {
  return page({
    title: 'Create your account',
    notices: view.notices ?? [],
    body: html`<div class="card">
      <h1>Create your account</h1>
      <form method="post" action="/signup">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <label for="name">Your name</label
        ><input
          id="name"
          name="name"
          type="text"
          autocomplete="name"
          required
          maxlength="200"
          value="${view.name ?? ''}"
        />
        <label for="email">Email</label
        ><input id="email" name="email" type="email" autocomplete="email" required value="${view.email ?? ''}" />
        <label for="password">Password <span class="muted">(at least 10 characters)</span></label
        ><input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" />
        <p><button type="submit">Create account</button></p>
      </form>
      <p>Already have an account? <a href="/signin">Sign in</a>.</p>
    </div>`,
  });
}

export function signInPage(view: { csrf: string; email?: string; next?: string; notices?: Notice[] }): string {
  return page({
    title: 'Sign in',
    notices: view.notices ?? [],
    body: html`<div class="card">
      <h1>Sign in</h1>
      <form method="post" action="/signin">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <input type="hidden" name="next" value="${view.next ?? ''}" />
        <label for="email">Email</label
        ><input id="email" name="email" type="email" autocomplete="username" required value="${view.email ?? ''}" />
        <label for="password">Password</label
        ><input id="password" name="password" type="password" autocomplete="current-password" required />
        <p><button type="submit">Sign in</button></p>
      </form>
      <p>New here? <a href="/signup">Create an account</a>.</p>
    </div>`,
  });
}
