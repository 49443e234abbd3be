/**
 * A workspace's members: the list, inviting a person by link (invitations.ts), adding an existing account or
 * changing a role, removing a member. Who may do what to whom is `assertMayAssignRole`, one rule for all.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { PendingInvitationView } from '../../domain/workspaces/invitations.service.ts';
import { assertMayAssignRole } from '../../domain/workspaces/membership-policy.ts';
import { isRole, ROLES, roleAtLeast, type Role } from '../../domain/workspaces/roles.ts';
import { ValidationError } from '../../errors.ts';
import { html } from '../../views/html.ts';
import { shell, stackedTable, type Chrome, type Notice } from './chrome.ts';
import { state, type DashboardKit } from './kit.ts';

/** An invitation link just made: shown once, on the page that answers the invite form. */
export interface NewInvitationLink {
  email: string;
  role: Role;
  url: string;
  expiresAt: Date;
}

/** Renders the members page of the request's workspace (after an action, with its notices). */
export type MembersRender = (ctx: Context, notices?: Notice[], newLink?: NewInvitationLink) => Promise<void>;

export function membersRenderer(kit: DashboardKit): MembersRender {
  const { em, sendHtml } = kit;
  const { workspaces, invitations } = kit.container.services;
  return async (ctx, notices = [], newLink) => {
    const ws = state(ctx).workspace!;
    const manage = roleAtLeast(ws.role, 'admin');
    sendHtml(
      ctx,
      membersPage(state(ctx).chrome, await workspaces.listMembers(em(), ws.id), state(ctx).session.user.id, notices, {
        pending: manage ? await invitations.listPending(em(), ws.id) : [],
        ...(newLink ? { newLink } : {}),
      }),
    );
  };
}

export function memberRoutes(router: Router, kit: DashboardKit): void {
  const { em } = kit;
  const { workspaces } = kit.container.services;
  const members = membersRenderer(kit);

  router.get('/w/:workspaceId/members', ...kit.workspacePage('workspace:read'), (ctx) => members(ctx));

  router.post('/w/:workspaceId/members', ...kit.workspaceAction('members:manage', members), async (ctx) => {
    const ws = state(ctx).workspace!;
    const body = ctx.request.body as Record<string, string>;
    if (!isRole(body.role)) throw new ValidationError('Choose a role: owner, admin, editor or viewer');
    const target = await workspaces.findUserByEmail(em(), String(body.email ?? ''));
    if (!target)
      throw new ValidationError(
        'No account uses that email. Invite the person by link instead (below): they can sign up when they open it.',
      );
    const current = await workspaces.membershipOf(em(), ws.id, target.id);
    assertMayAssignRole(
      { userId: state(ctx).session.user.id, role: ws.role },
      { userId: target.id, currentRole: current?.role ?? null },
      body.role,
    );
    const { created } = await workspaces.setMember(
      em(),
      ws.id,
      { email: target.email, role: body.role },
      state(ctx).session.user.id,
    );
    await kit.recordAudit(ctx, {
      action: created ? 'member.add' : 'member.change_role',
      targetType: 'user',
      targetId: target.id,
      details: { email: target.email, role: body.role, previousRole: current?.role ?? null },
    });
    await members(ctx, [
      { kind: 'ok', text: created ? `Added ${target.email} as ${body.role}.` : `${target.email} is now ${body.role}.` },
    ]);
  });

  router.post(
    '/w/:workspaceId/members/:userId/remove',
    ...kit.workspaceAction('members:manage', members),
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
      await kit.recordAudit(ctx, {
        action: 'member.remove',
        targetType: 'user',
        targetId: ctx.params.userId!,
        details: { email: removed.user.getEntity().email, role: removed.role },
      });
      await members(ctx, [{ kind: 'ok', text: `Removed ${removed.user.getEntity().email}.` }]);
    },
  );
}

const dateOf = (at: Date) => at.toISOString().slice(0, 16).replace('T', ' ');

export function membersPage(
  chrome: Chrome,
  members: { userId: string; email: string; name: string; role: Role }[],
  currentUserId: string,
  notices: Notice[] = [],
  invitations: { pending: PendingInvitationView[]; newLink?: NewInvitationLink } = { pending: [] },
): string {
  const ws = chrome.current!;
  const manage = roleAtLeast(ws.role, 'admin');
  const assignable = ROLES.filter((role) => ws.role === 'owner' || role !== 'owner');
  const csrf = html`<input type="hidden" name="_csrf" value="${chrome.csrf}" />`;
  const roleSelect = (id: string, selected: Role) =>
    html`<select id="${id}" name="role">
      ${assignable.map((r) => html`<option value="${r}" ${r === selected ? html`selected` : ''}>${r}</option>`)}
    </select>`;
  const changeCell = (m: (typeof members)[number]) =>
    m.userId === currentUserId || (m.role === 'owner' && ws.role !== 'owner')
      ? html`<span class="muted">—</span>`
      : html`<form method="post" action="/w/${ws.id}/members" class="row">
            ${csrf}<input type="hidden" name="email" value="${m.email}" />
            <div>
              <label class="inline" for="role-${m.userId}">Role for ${m.email}</label>
              ${roleSelect(`role-${m.userId}`, m.role)}
            </div>
            <button class="secondary" type="submit">Save role</button>
          </form>
          <form method="post" action="/w/${ws.id}/members/${m.userId}/remove">
            ${csrf}<button class="secondary" type="submit">Remove ${m.email}</button>
          </form>`;
  return shell(
    'Members',
    chrome,
    html`<h1>Members of ${ws.name}</h1>
      ${
        invitations.newLink
          ? html`<div class="card" role="status" aria-labelledby="new-link">
              <h2 id="new-link">Invitation link for ${invitations.newLink.email}</h2>
              <p>
                Send this link to ${invitations.newLink.email} yourself (it is shown only now). It works once, for that
                email, until ${dateOf(invitations.newLink.expiresAt)} UTC, and makes them ${invitations.newLink.role}.
              </p>
              <code class="secret">${invitations.newLink.url}</code>
            </div>`
          : ''
      }
      ${stackedTable(
        manage ? ['Person', 'Role', 'Change'] : ['Person', 'Role'],
        members.map((m) => [
          html`${m.name}<br /><span class="muted">${m.email}</span>`,
          m.role,
          ...(manage ? [changeCell(m)] : []),
        ]),
      )}
      ${
        manage
          ? html`<h2>Invite someone</h2>
              <form method="post" action="/w/${ws.id}/invitations" class="card">
                ${csrf}
                <p class="muted">
                  You get a link to send them. They open it, sign in or create an account with this email, and join with
                  the role you choose.
                </p>
                <label for="invite-email">Email to invite</label
                ><input id="invite-email" name="email" type="email" required />
                <label for="invite-role">Role to give</label>${roleSelect('invite-role', 'editor')}
                <p><button type="submit">Create invitation link</button></p>
              </form>
              <h2>Pending invitations</h2>
              ${
                invitations.pending.length
                  ? stackedTable(
                      ['Invited', 'Role', 'By', 'Expires (UTC)', 'Withdraw'],
                      invitations.pending.map((i) => [
                        i.email,
                        i.role,
                        html`${i.invitedBy.name}<br /><span class="muted">${i.invitedBy.email}</span>`,
                        dateOf(i.expiresAt),
                        html`<form method="post" action="/w/${ws.id}/invitations/${i.id}/revoke">
                          ${csrf}<button class="secondary" type="submit">Withdraw invitation of ${i.email}</button>
                        </form>`,
                      ]),
                    )
                  : html`<p class="muted">No invitations are waiting.</p>`
              }
              <h2>Add someone who has an account</h2>
              <form method="post" action="/w/${ws.id}/members" class="card">
                ${csrf}
                <label for="member-email">Email</label><input id="member-email" name="email" type="email" required />
                <label for="member-role">Role</label>${roleSelect('member-role', 'editor')}
                <p><button type="submit">Add member</button></p>
              </form>`
          : ''
      }
      <h2>What roles may do</h2>
      <ul>
        <li><strong>viewer</strong>: reads everything</li>
        <li><strong>editor</strong>: also changes campaigns and spends credits</li>
        <li>
          <strong>admin</strong>: also manages API keys, members, custom domains and connected apps, reads the audit log
          and sees software versions
        </li>
        <li><strong>owner</strong>: also manages credits and can delete the workspace</li>
      </ul>`,
    notices,
  );
}
