/** The workspace list (with "create a workspace") and a workspace's overview page (with "delete it"). */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { CreditBalance } from '../../domain/credits/credits.service.ts';
import { roleAtLeast } from '../../domain/workspaces/roles.ts';
import { brandSiteUrl } from '../hosts.ts';
import { html } from '../../views/html.ts';
import { shell, type Chrome, type Notice } from './chrome.ts';
import { state, type DashboardKit } from './kit.ts';

export function workspaceRoutes(router: Router, kit: DashboardKit): void {
  const { em, form, sendHtml, requireSession, requireCsrf, withNotices } = kit;
  const { config } = kit.container;
  const { workspaces, credits } = kit.container.services;

  router.get('/workspaces', requireSession, (ctx) => sendHtml(ctx, workspacesPage(state(ctx).chrome)));

  router.post(
    '/workspaces',
    requireSession,
    form,
    requireCsrf,
    withNotices(async (ctx, notices) => sendHtml(ctx, workspacesPage(state(ctx).chrome, notices), 400)),
    async (ctx) => {
      const body = ctx.request.body as Record<string, string>;
      const workspace = await workspaces.createWorkspace(em(), {
        name: body.name ?? '',
        ownerUserId: state(ctx).session.user.id,
      });
      await kit.recordAudit(ctx, {
        workspaceId: workspace.id,
        action: 'workspace.create',
        targetType: 'workspace',
        targetId: workspace.id,
        details: { name: workspace.name },
      });
      ctx.redirect(`/w/${workspace.id}`);
    },
  );

  const overview = async (ctx: Context, notices: Notice[] = []) => {
    const ws = state(ctx).workspace!;
    const workspace = await workspaces.requireWorkspace(em(), ws.id);
    sendHtml(
      ctx,
      overviewPage(
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
  router.get('/w/:workspaceId', ...kit.workspacePage('workspace:read'), (ctx) => overview(ctx));

  // Renaming is an owner's act, like deleting: the name is what members and connected apps know it by.
  router.post('/w/:workspaceId/rename', ...kit.workspaceAction('workspace:delete', overview), async (ctx) => {
    const ws = state(ctx).workspace!;
    const body = ctx.request.body as Record<string, string>;
    const { previous, workspace } = await workspaces.renameWorkspace(
      em(),
      ws.id,
      String(body.name ?? ''),
      state(ctx).session.user.id,
    );
    await kit.recordAudit(ctx, {
      action: 'workspace.rename',
      targetType: 'workspace',
      targetId: ws.id,
      details: { from: previous, to: workspace.name },
    });
    ctx.redirect(`/w/${ws.id}`);
  });

  router.post('/w/:workspaceId/delete', ...kit.workspaceAction('workspace:delete', overview), async (ctx) => {
    const ws = state(ctx).workspace!;
    const body = ctx.request.body as Record<string, string>;
    await workspaces.softDelete(em(), ws.id, String(body.confirm ?? ''));
    await kit.revokeWorkspaceGrants(ws.id);
    await kit.recordAudit(ctx, { action: 'workspace.delete', targetType: 'workspace', targetId: ws.id });
    ctx.redirect('/workspaces');
  });
}

export function workspacesPage(chrome: Chrome, notices: Notice[] = []): string {
  return shell(
    'Workspaces',
    chrome,
    html`<h1>Your workspaces</h1>
      ${
        chrome.workspaces.length
          ? html`<table>
              <thead>
                <tr>
                  <th scope="col">Workspace</th>
                  <th scope="col">Your role</th>
                </tr>
              </thead>
              <tbody>
                ${chrome.workspaces.map(
                  (w) =>
                    html`<tr>
                      <td><a href="/w/${w.id}">${w.name}</a></td>
                      <td>${w.role}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>You are not a member of any workspace yet. Create one below, or ask an admin to add you.</p>`
      }
      <h2>Create a workspace</h2>
      <form method="post" action="/workspaces" class="card">
        <input type="hidden" name="_csrf" value="${chrome.csrf}" />
        <label for="ws-name">Name</label><input id="ws-name" name="name" type="text" required maxlength="200" />
        <p class="muted">Each workspace you own needs its own name.</p>
        <p><button type="submit">Create workspace</button></p>
      </form>`,
    notices,
  );
}

export function overviewPage(
  chrome: Chrome,
  view: { slug: string; credits: CreditBalance; mcpUrl: string; brandSiteUrl: string },
  notices: Notice[] = [],
): string {
  const ws = chrome.current!;
  return shell(
    ws.name,
    chrome,
    html`<h1>${ws.name}</h1>
      <div class="card">
        <p>Workspace id <code>${ws.id}</code> · your role: <strong>${ws.role}</strong></p>
        <p>
          Credits available: <strong>${view.credits.available}</strong>
          <span class="muted">(held by running jobs: ${view.credits.held})</span>
        </p>
        <p>Brand site: <a href="${view.brandSiteUrl}">${view.brandSiteUrl}</a></p>
      </div>
      <h2>Connect an agent</h2>
      <div class="card">
        <p>MCP endpoint: <code>${view.mcpUrl}</code></p>
        <p>
          MCP clients need only this URL: they sign you in with OAuth on first use and ask which workspace to use. For
          headless agents, create an API
          key${roleAtLeast(ws.role, 'admin') ? html` under <a href="/w/${ws.id}/keys">API keys</a>` : ' (an admin can create one)'}
          and send it as <code>x-api-key</code>.
        </p>
      </div>
      ${
        ws.role === 'owner'
          ? html`<h2>Rename this workspace</h2>
              <form method="post" action="/w/${ws.id}/rename" class="card">
                <input type="hidden" name="_csrf" value="${chrome.csrf}" />
                <label for="rename">New name</label
                ><input id="rename" name="name" type="text" required maxlength="200" value="${ws.name}" />
                <p class="muted">Each of your workspaces needs its own name. The brand site address does not change.</p>
                <p><button type="submit">Rename workspace</button></p>
              </form>`
          : ''
      }
      ${
        ws.role === 'owner'
          ? html`<h2>Delete this workspace</h2>
              <form method="post" action="/w/${ws.id}/delete" class="card">
                <input type="hidden" name="_csrf" value="${chrome.csrf}" />
                <p>Deleting stops every key and connected app at once. Type the workspace name to confirm.</p>
                <label for="confirm">Workspace name</label><input id="confirm" name="confirm" type="text" required />
                <p><button class="danger" type="submit">Delete workspace</button></p>
              </form>`
          : ''
      }`,
    notices,
  );
}
