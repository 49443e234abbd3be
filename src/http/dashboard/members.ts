/** A workspace's members: the list, adding a person or changing their role, removing them. */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { assertMayAssignRole } from '../../domain/workspaces/membership-policy.ts';
import { isRole, ROLES, roleAtLeast, type Role } from '../../domain/workspaces/roles.ts';
import { ValidationError } from '../../errors.ts';
import { html } from '../../views/html.ts';
import { shell, type Chrome, type Notice } from './chrome.ts';
import { state, type DashboardKit } from './kit.ts';

export function memberRoutes(router: Router, kit: DashboardKit): void {
  const { em, sendHtml } = kit;
  const { workspaces } = kit.container.services;

  const members = async (ctx: Context, notices: Notice[] = []) => {
    const ws = state(ctx).workspace!;
    sendHtml(
      ctx,
      membersPage(state(ctx).chrome, await workspaces.listMembers(em(), ws.id), state(ctx).session.user.id, notices),
    );
  };
  router.get('/w/:workspaceId/members', ...kit.workspacePage('workspace:read'), (ctx) => members(ctx));

  router.post('/w/:workspaceId/members', ...kit.workspaceAction('members:manage', members), async (ctx) => {
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
        details: { role: removed.role },
      });
      await members(ctx, [{ kind: 'ok', text: 'Member removed.' }]);
    },
  );
}

export function membersPage(
  chrome: Chrome,
  members: { userId: string; email: string; name: string; role: Role }[],
  currentUserId: string,
  notices: Notice[] = [],
): string {
  const ws = chrome.current!;
  const manage = roleAtLeast(ws.role, 'admin');
  const assignable = ROLES.filter((role) => ws.role === 'owner' || role !== 'owner');
  return shell(
    'Members',
    chrome,
    html`<h1>Members of ${ws.name}</h1>
      <table>
        <thead>
          <tr>
            <th scope="col">Person</th>
            <th scope="col">Role</th>
            ${manage ? html`<th scope="col">Change</th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${members.map(
            (m) =>
              html`<tr>
                <td>${m.name}<br /><span class="muted">${m.email}</span></td>
                <td>${m.role}</td>
                ${
                  manage
                    ? html`<td>
                        ${
                          m.userId === currentUserId || (m.role === 'owner' && ws.role !== 'owner')
                            ? html`<span class="muted">—</span>`
                            : html`<form method="post" action="/w/${ws.id}/members" class="row">
                                  <input type="hidden" name="_csrf" value="${chrome.csrf}" /><input
                                    type="hidden"
                                    name="email"
                                    value="${m.email}"
                                  />
                                  <label class="inline" for="role-${m.userId}">Role for ${m.email}</label>
                                  <select id="role-${m.userId}" name="role" style="width:auto">
                                    ${assignable.map((r) => html`<option value="${r}" ${r === m.role ? html`selected` : ''}>${r}</option>`)}
                                  </select>
                                  <button class="secondary" type="submit">Save</button>
                                </form>
                                <form method="post" action="/w/${ws.id}/members/${m.userId}/remove">
                                  <input type="hidden" name="_csrf" value="${chrome.csrf}" /><button
                                    class="secondary"
                                    type="submit"
                                  >
                                    Remove ${m.email}
                                  </button>
                                </form>`
                        }
                      </td>`
                    : ''
                }
              </tr>`,
          )}
        </tbody>
      </table>
      ${
        manage
          ? html`<h2>Add a member</h2>
              <form method="post" action="/w/${ws.id}/members" class="card">
                <input type="hidden" name="_csrf" value="${chrome.csrf}" />
                <p class="muted">The person needs an account first (they sign up with their email).</p>
                <label for="member-email">Email</label><input id="member-email" name="email" type="email" required />
                <label for="member-role">Role</label
                ><select id="member-role" name="role">
                  ${assignable.map((r) => html`<option value="${r}" ${r === 'editor' ? html`selected` : ''}>${r}</option>`)}
                </select>
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
