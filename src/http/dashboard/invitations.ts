/**
 * Invitations by link (the rules are in `invitations.service.ts`):
 *
 * - an admin invites an email with a role on the members page; the link is shown once, on that answer;
 * - pending invitations are listed there (never their links) and can be withdrawn;
 * - the invitee opens `/invitations/<token>`: signed out, they are sent to sign in or sign up with the invited
 *   email and come back; signed in with another email, the page says so and offers to sign out; signed in with
 *   the right one, "Join <workspace>" makes them a member and opens the workspace.
 *
 * Creating, withdrawing and accepting (and refused accepts) land in the audit log.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { InvitationUnusableError, type InvitationPreview } from '../../domain/workspaces/invitations.service.ts';
import { AppError } from '../../errors.ts';
import { html, page } from '../../views/html.ts';
import type { Notice } from './chrome.ts';
import { state, type DashboardKit } from './kit.ts';
import { membersRenderer } from './members.ts';

export function invitationRoutes(router: Router, kit: DashboardKit): void {
  const { em, sendHtml, requireSession, requireCsrf, form } = kit;
  const { invitations } = kit.container.services;
  const members = membersRenderer(kit);
  const platformUrl = kit.container.config.urls.platform;

  router.post('/w/:workspaceId/invitations', ...kit.workspaceAction('members:manage', members), async (ctx) => {
    const ws = state(ctx).workspace!;
    const body = ctx.request.body as Record<string, string>;
    const { invitation, token, replaced } = await invitations.create(em(), {
      workspaceId: ws.id,
      inviter: { userId: state(ctx).session.user.id, role: ws.role },
      email: String(body.email ?? ''),
      role: String(body.role ?? ''),
    });
    await kit.recordAudit(ctx, {
      action: 'invitation.create',
      targetType: 'invitation',
      targetId: invitation.id,
      details: { email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt.toISOString() },
    });
    await members(
      ctx,
      replaced
        ? [
            {
              kind: 'warn',
              text: `The earlier invitation of ${invitation.email} was withdrawn; only the new link works.`,
            },
          ]
        : [],
      {
        email: invitation.email,
        role: invitation.role,
        url: `${platformUrl}/invitations/${token}`,
        expiresAt: invitation.expiresAt,
      },
    );
  });

  router.post(
    '/w/:workspaceId/invitations/:invitationId/revoke',
    ...kit.workspaceAction('members:manage', members),
    async (ctx) => {
      const ws = state(ctx).workspace!;
      const invitation = await invitations.revoke(em(), ws.id, ctx.params.invitationId!, {
        userId: state(ctx).session.user.id,
        role: ws.role,
      });
      await kit.recordAudit(ctx, {
        action: 'invitation.revoke',
        targetType: 'invitation',
        targetId: invitation.id,
        details: { email: invitation.email, role: invitation.role },
      });
      await members(ctx, [
        { kind: 'ok', text: `Withdrew the invitation of ${invitation.email}; its link no longer works.` },
      ]);
    },
  );

  /** The invitation page, for whoever holds the link: what it offers, and the next step for who they are. */
  async function invitationPage(ctx: Context, notices: Notice[] = [], status = 200) {
    const token = ctx.params.token!;
    const session = await kit.sessionOf(ctx);
    let offer: InvitationPreview;
    try {
      offer = await invitations.preview(em(), token);
    } catch (error) {
      if (!(error instanceof InvitationUnusableError)) throw error;
      const body = html`<div class="card" role="alert">
        <h1>This invitation cannot be used</h1>
        <p>${error.message}</p>
        <p><a href="${session ? '/workspaces' : '/signin'}">${session ? 'Go to your workspaces' : 'Sign in'}</a></p>
      </div>`;
      return sendHtml(ctx, page({ title: 'Invitation', body }), status === 200 ? 410 : status);
    }
    const here = `/invitations/${token}`;
    const email = session?.user.getEntity().email ?? null;
    const intro = html`<h1>Join ${offer.workspaceName}</h1>
      <p>
        ${offer.invitedByName} invited <strong>${offer.email}</strong> to the workspace
        <strong>${offer.workspaceName}</strong> as <strong>${offer.role}</strong>.
      </p>`;
    let next;
    if (!email) {
      next = html`<p>Sign in with ${offer.email}, or create an account with that email, to accept.</p>
        <p class="row">
          <a class="button" href="/signin?next=${encodeURIComponent(here)}&email=${encodeURIComponent(offer.email)}"
            >Sign in as ${offer.email}</a
          >
          <a
            class="button secondary"
            href="/signup?next=${encodeURIComponent(here)}&email=${encodeURIComponent(offer.email)}"
            >Create an account</a
          >
        </p>`;
    } else if (email !== offer.email) {
      next = html`<div class="reason" role="alert">
          <p>
            You are signed in as <strong>${email}</strong>, but this invitation is for <strong>${offer.email}</strong>.
            Sign out, then open this link again and sign in (or create an account) with ${offer.email}. If ${email} is
            the address you want to use, ask for an invitation to it.
          </p>
        </div>
        <form method="post" action="/signout">
          <input type="hidden" name="_csrf" value="${session!.csrfToken}" />
          <input type="hidden" name="next" value="${here}" />
          <button type="submit">Sign out of ${email}</button>
        </form>`;
    } else {
      next = html`<form method="post" action="${here}/accept">
        <input type="hidden" name="_csrf" value="${session!.csrfToken}" />
        <p><button type="submit">Join ${offer.workspaceName} as ${offer.role}</button></p>
      </form>`;
    }
    const body = html`<div class="card">${intro}${next}</div>`;
    sendHtml(ctx, page({ title: `Join ${offer.workspaceName}`, body, notices }), status);
  }

  router.get('/invitations/:token', (ctx) => invitationPage(ctx));

  router.post('/invitations/:token/accept', requireSession, form, requireCsrf, async (ctx) => {
    const user = state(ctx).session.user.getEntity();
    // For the audit line of a refusal: the workspace the link points to, when the link is still valid.
    const offer = await invitations.preview(em(), ctx.params.token!).catch(() => null);
    try {
      const joined = await invitations.accept(em(), ctx.params.token!, { id: user.id, email: user.email });
      await kit.recordAudit(ctx, {
        workspaceId: joined.workspaceId,
        action: 'invitation.accept',
        targetType: 'invitation',
        targetId: joined.id,
        details: { email: joined.email, role: joined.role },
      });
      ctx.redirect(`/w/${joined.workspaceId}`);
    } catch (error) {
      if (!(error instanceof AppError) || error.code === 'internal_error') throw error;
      await kit.recordAudit(ctx, {
        workspaceId: offer?.workspaceId ?? null,
        action: 'invitation.accept',
        outcome: 'denied',
        targetType: offer ? 'invitation' : null,
        targetId: offer?.id ?? null,
        details: { reason: String(error.details?.reason ?? error.code), email: user.email },
      });
      await invitationPage(ctx, [{ kind: 'error', text: error.message }], error.status);
    }
  });
}
