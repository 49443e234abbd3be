/**
 * The account pages: sign up, sign in and out, and the entry redirects (`/`, the workspace switcher). Sign-up
 * and sign-in are anonymous forms with their own CSRF token and rate limits; both land in the audit log.
 */
import type Router from '@koa/router';
import { authenticatePassword } from '../../domain/sessions/password-sign-in.ts';
import type { Context } from 'koa';
import { PasswordResetUnusableError } from '../../domain/workspaces/passwords.service.ts';
import { AppError } from '../../errors.ts';
import { html, page } from '../../views/html.ts';
import { shell, type Chrome, type Notice } from './chrome.ts';
import { state, type DashboardKit } from './kit.ts';

/** An email to fill in from an invitation link's query (shown in a field, so escaped like any value). */
function emailHint(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 320 ? value : undefined;
}

function safeNext(value: unknown): string {
  return typeof value === 'string' && /^\/(?!\/)[A-Za-z0-9/_\-?=&%.]*$/.test(value) ? value : '/workspaces';
}

export function accountRoutes(router: Router, kit: DashboardKit): void {
  const { csrf, em, form, sendHtml, requireSession, requireCsrf, withNotices } = kit;
  const { workspaces, passwords } = kit.container.services;

  router.get('/', async (ctx) => {
    const session = await kit.sessionOf(ctx);
    ctx.redirect(
      session ? (session.currentWorkspaceId ? `/w/${session.currentWorkspaceId}` : '/workspaces') : '/signin',
    );
  });

  router.get('/signup', (ctx) =>
    sendHtml(
      ctx,
      signUpPage({ csrf: csrf.anonymousToken(ctx), next: safeNext(ctx.query.next), email: emailHint(ctx.query.email) }),
    ),
  );

  // A taken email gets the same answer shape as other problems, without confirming who has an account.
  const signUpNotices = withNotices(
    async (ctx, notices) => {
      const body = ctx.request.body as Record<string, string>;
      sendHtml(
        ctx,
        signUpPage({
          csrf: csrf.anonymousToken(ctx),
          email: body.email,
          name: body.name,
          next: safeNext(body.next),
          notices,
        }),
      );
    },
    (error) =>
      error.code === 'conflict' ? 'An account with that email already exists. Sign in instead.' : error.message,
  );

  router.post('/signup', form, signUpNotices, async (ctx) => {
    const body = ctx.request.body as Record<string, string>;
    const again = (notices: Notice[], status: number) =>
      sendHtml(
        ctx,
        signUpPage({
          csrf: csrf.anonymousToken(ctx),
          email: body.email,
          name: body.name,
          next: safeNext(body.next),
          notices,
        }),
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
    ctx.redirect(safeNext(body.next));
  });

  router.get('/signin', (ctx) =>
    sendHtml(
      ctx,
      signInPage({ csrf: csrf.anonymousToken(ctx), next: safeNext(ctx.query.next), email: emailHint(ctx.query.email) }),
    ),
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
    // An invitation page signs a person out to come back as the invited email: back to it, else to sign-in.
    const next = safeNext((ctx.request.body as Record<string, unknown>).next);
    ctx.redirect(next.startsWith('/invitations/') ? next : '/signin');
  });

  // The account page: who you are, and a password change (current password required; other sessions end).
  const accountPage = async (ctx: Context, notices: Notice[] = []) =>
    sendHtml(ctx, accountSettingsPage(state(ctx).chrome, state(ctx).session.user.getEntity().name, notices));
  router.get('/account', requireSession, (ctx) => accountPage(ctx));

  router.post('/account/password', requireSession, form, requireCsrf, withNotices(accountPage), async (ctx) => {
    const body = ctx.request.body as Record<string, string>;
    try {
      const { endedSessions } = await passwords.change(em(), {
        userId: state(ctx).session.user.id,
        current: String(body.current ?? ''),
        next: String(body.password ?? ''),
        confirmation: String(body.confirm ?? ''),
        keepSessionId: state(ctx).session.id,
      });
      await kit.recordAudit(ctx, { action: 'account.password_change', details: { endedSessions } });
      await accountPage(ctx, [
        {
          kind: 'ok',
          text: `Password changed. ${endedSessions ? `Signed out ${endedSessions} other session(s).` : 'You had no other sessions.'}`,
        },
      ]);
    } catch (error) {
      if (error instanceof AppError && error.details?.reason === 'wrong_password') {
        await kit.recordAudit(ctx, {
          action: 'account.password_change',
          outcome: 'denied',
          details: { reason: 'wrong_password' },
        });
      }
      throw error;
    }
  });

  // A reset link issued by an operator (`campaignctl user:reset-password`): set a new password, once.
  const resetPage = async (ctx: Context, notices: Notice[] = [], status = 200) => {
    const token = ctx.params.token!;
    try {
      const whose = await passwords.previewReset(em(), token);
      sendHtml(ctx, passwordResetPage({ csrf: csrf.anonymousToken(ctx), token, email: whose.email, notices }), status);
    } catch (error) {
      if (!(error instanceof PasswordResetUnusableError)) throw error;
      sendHtml(
        ctx,
        page({
          title: 'Reset your password',
          body: html`<div class="card" role="alert">
            <h1>This link cannot be used</h1>
            <p>${error.message}</p>
            <p><a href="/signin">Sign in</a></p>
          </div>`,
        }),
        410,
      );
    }
  };
  router.get('/reset-password/:token', (ctx) => resetPage(ctx));

  router.post(
    '/reset-password/:token',
    form,
    withNotices((ctx, notices) => resetPage(ctx, notices, 400)),
    async (ctx) => {
      const body = ctx.request.body as Record<string, string>;
      if (!csrf.verifyAnonymous(ctx, body._csrf))
        return resetPage(ctx, [{ kind: 'error', text: 'The form expired. Please try again.' }], 403);
      const { user, endedSessions } = await passwords.reset(em(), {
        token: ctx.params.token!,
        next: String(body.password ?? ''),
        confirmation: String(body.confirm ?? ''),
      });
      await kit.recordAudit(ctx, {
        actor: `user:${user.id}`,
        action: 'account.password_reset',
        details: { endedSessions },
      });
      sendHtml(
        ctx,
        signInPage({
          csrf: csrf.anonymousToken(ctx),
          email: user.email,
          notices: [
            {
              kind: 'ok',
              text: 'Your password was changed and every session was signed out. Sign in with the new password.',
            },
          ],
        }),
      );
    },
  );

  router.get('/switch', requireSession, async (ctx) => {
    ctx.redirect(`/w/${encodeURIComponent(String(ctx.query.workspace ?? ''))}`);
  });
}

export function signUpPage(view: {
  csrf: string;
  email?: string;
  name?: string;
  next?: string;
  notices?: Notice[];
}): string {
  return page({
    title: 'Create your account',
    notices: view.notices ?? [],
    body: html`<div class="card">
      <h1>Create your account</h1>
      <form method="post" action="/signup">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <input type="hidden" name="next" value="${view.next ?? '/workspaces'}" />
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
      <p>
        Already have an account?
        <a href="/signin${view.next && view.next !== '/workspaces' ? `?next=${encodeURIComponent(view.next)}` : ''}"
          >Sign in</a
        >.
      </p>
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
      <p>
        New here?
        <a href="/signup${view.next && view.next !== '/workspaces' ? `?next=${encodeURIComponent(view.next)}` : ''}"
          >Create an account</a
        >.
      </p>
      <p class="muted">Forgot your password? Ask the platform operator for a reset link.</p>
    </div>`,
  });
}

const NEW_PASSWORD_FIELDS = html`<label for="password"
    >New password <span class="muted">(at least 10 characters)</span></label
  ><input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" />
  <label for="confirm">New password again</label
  ><input id="confirm" name="confirm" type="password" autocomplete="new-password" required minlength="10" />`;

export function accountSettingsPage(chrome: Chrome, name: string, notices: Notice[] = []): string {
  return shell(
    'Your account',
    chrome,
    html`<h1>Your account</h1>
      <div class="card">
        <p>${name}<br /><span class="muted">${chrome.userEmail}</span></p>
      </div>
      <h2>Change your password</h2>
      <form method="post" action="/account/password" class="card">
        <input type="hidden" name="_csrf" value="${chrome.csrf}" />
        <input type="text" name="username" autocomplete="username" value="${chrome.userEmail}" hidden />
        <label for="current">Current password</label
        ><input id="current" name="current" type="password" autocomplete="current-password" required />
        ${NEW_PASSWORD_FIELDS}
        <p class="muted">Changing it signs you out everywhere else (other browsers and devices).</p>
        <p><button type="submit">Change password</button></p>
      </form>`,
    notices,
  );
}

export function passwordResetPage(view: { csrf: string; token: string; email: string; notices?: Notice[] }): string {
  return page({
    title: 'Reset your password',
    notices: view.notices ?? [],
    body: html`<div class="card">
      <h1>Set a new password</h1>
      <p>For <strong>${view.email}</strong>. Every session of this account will be signed out.</p>
      <form method="post" action="/reset-password/${view.token}">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <input type="text" name="username" autocomplete="username" value="${view.email}" hidden />
        ${NEW_PASSWORD_FIELDS}
        <p><button type="submit">Set new password</button></p>
      </form>
    </div>`,
  });
}
