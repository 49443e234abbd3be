/** The OAuth apps people connected to a workspace, and revoking one. */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ConnectedAppView } from '../../auth/oidc/connected-apps.ts';
import { html } from '../../views/html.ts';
import { shell, type Chrome, type Notice } from './chrome.ts';
import { state, type DashboardKit } from './kit.ts';

export function connectedAppRoutes(router: Router, kit: DashboardKit): void {
  const { em, sendHtml, connectedApps } = kit;

  const apps = async (ctx: Context, notices: Notice[] = []) => {
    const ws = state(ctx).workspace!;
    sendHtml(ctx, connectedAppsPage(state(ctx).chrome, await connectedApps.list(em(), ws.id), notices));
  };
  router.get('/w/:workspaceId/apps', ...kit.workspacePage('apps:manage'), (ctx) => apps(ctx));

  router.post('/w/:workspaceId/apps/:grantId/revoke', ...kit.workspaceAction('apps:manage', apps), async (ctx) => {
    const ws = state(ctx).workspace!;
    const binding = await connectedApps.revoke(em(), ws.id, ctx.params.grantId!);
    await kit.recordAudit(ctx, {
      action: 'oauth.revoke',
      targetType: 'oauth_client',
      targetId: binding.clientId,
      details: { grantId: binding.grantId, via: 'dashboard' },
    });
    await apps(ctx, [{ kind: 'ok', text: `Revoked ${binding.clientName ?? binding.clientId}.` }]);
  });
}

export function connectedAppsPage(chrome: Chrome, apps: ConnectedAppView[], notices: Notice[] = []): string {
  const ws = chrome.current!;
  return shell(
    'Connected apps',
    chrome,
    html`<h1>Connected apps</h1>
      <p>Apps people connected to <strong>${ws.name}</strong> through OAuth. Revoking one signs it out at once.</p>
      ${
        apps.length
          ? html`<table>
              <thead>
                <tr>
                  <th scope="col">App</th>
                  <th scope="col">Person</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Connected</th>
                  <th scope="col">Last used</th>
                  <th scope="col"></th>
                </tr>
              </thead>
              <tbody>
                ${apps.map(
                  (a) =>
                    html`<tr>
                      <td>${a.clientName ?? a.clientId}<br /><span class="muted">${a.clientId}</span></td>
                      <td>${a.person}</td>
                      <td>${a.scopes.join(' ')}</td>
                      <td>${a.connectedAt.slice(0, 16).replace('T', ' ')}</td>
                      <td>${a.lastUsedAt ? a.lastUsedAt.slice(0, 16).replace('T', ' ') : 'never'}</td>
                      <td>
                        <form method="post" action="/w/${ws.id}/apps/${a.grantId}/revoke">
                          <input type="hidden" name="_csrf" value="${chrome.csrf}" /><button
                            class="secondary"
                            type="submit"
                          >
                            Revoke ${a.clientName ?? a.clientId}
                          </button>
                        </form>
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>No apps are connected.</p>`
      }`,
    notices,
  );
}
