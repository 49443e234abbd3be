/** A workspace's API keys: the list, creating one (its secret shown once), disabling one. */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ApiKeyView } from '../../domain/workspaces/workspaces.service.ts';
import { isRole, ROLES, roleAtLeast } from '../../domain/workspaces/roles.ts';
import { ValidationError } from '../../errors.ts';
import { html } from '../../views/html.ts';
import { shell, type Chrome, type Notice } from './chrome.ts';
import { state, type DashboardKit } from './kit.ts';

export function keyRoutes(router: Router, kit: DashboardKit): void {
  const { em, sendHtml } = kit;
  const { workspaces } = kit.container.services;

  const keys = async (ctx: Context, notices: Notice[] = [], created?: { name: string; secret: string }) => {
    const ws = state(ctx).workspace!;
    sendHtml(ctx, apiKeysPage(state(ctx).chrome, await workspaces.listApiKeys(em(), ws.id), created, notices));
  };
  router.get('/w/:workspaceId/keys', ...kit.workspacePage('keys:manage'), (ctx) => keys(ctx));

  router.post('/w/:workspaceId/keys', ...kit.workspaceAction('keys:manage', keys), async (ctx) => {
    const ws = state(ctx).workspace!;
    const body = ctx.request.body as Record<string, string>;
    if (!isRole(body.role)) throw new ValidationError('Choose a role for the key');
    const { key, secret } = await workspaces.createApiKey(em(), ws.id, {
      name: body.name ?? '',
      role: body.role,
      createdByUserId: state(ctx).session.user.id,
    });
    await kit.recordAudit(ctx, {
      action: 'api_key.create',
      targetType: 'api_key',
      targetId: key.id,
      details: { name: key.name, role: key.role, prefix: key.prefix },
    });
    // The secret goes into this one response and nowhere else (not a redirect, not a log, not the database).
    await keys(ctx, [], { name: key.name, secret });
  });

  router.post('/w/:workspaceId/keys/:keyId/disable', ...kit.workspaceAction('keys:manage', keys), async (ctx) => {
    const ws = state(ctx).workspace!;
    const key = await workspaces.disableApiKey(em(), ws.id, ctx.params.keyId!);
    await kit.recordAudit(ctx, {
      action: 'api_key.disable',
      targetType: 'api_key',
      targetId: key.id,
      details: { name: key.name },
    });
    await keys(ctx, [{ kind: 'ok', text: `Disabled “${key.name}”. It stopped working at once.` }]);
  });
}

export function apiKeysPage(
  chrome: Chrome,
  keys: ApiKeyView[],
  created?: { name: string; secret: string },
  notices: Notice[] = [],
): string {
  const ws = chrome.current!;
  const roles = ROLES.filter((role) => roleAtLeast(ws.role, role));
  return shell(
    'API keys',
    chrome,
    html`<h1>API keys</h1>
      ${
        created
          ? html`<div class="card" role="status">
              <h2>Key “${created.name}” created</h2>
              <p>Copy it now: this is the only time it is shown.</p>
              <code class="secret" id="new-key-secret">${created.secret}</code>
              <p class="muted">Send it as the <code>x-api-key</code> header to the MCP endpoint.</p>
            </div>`
          : ''
      }
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Role</th>
            <th scope="col">Created by</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          ${keys.map(
            (k) =>
              html`<tr>
                <td>${k.name}</td>
                <td><code>${k.prefix}…</code></td>
                <td>${k.role}</td>
                <td>${k.createdBy ?? '—'}</td>
                <td>${k.createdAt.slice(0, 16).replace('T', ' ')}</td>
                <td>${k.lastUsedAt ? k.lastUsedAt.slice(0, 16).replace('T', ' ') : 'never'}</td>
                <td>
                  ${
                    k.disabledAt
                      ? html`disabled`
                      : html`<form method="post" action="/w/${ws.id}/keys/${k.id}/disable">
                          <input type="hidden" name="_csrf" value="${chrome.csrf}" /><button
                            class="secondary"
                            type="submit"
                          >
                            Disable ${k.name}
                          </button>
                        </form>`
                  }
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      <h2>Create a key</h2>
      <form method="post" action="/w/${ws.id}/keys" class="card">
        <input type="hidden" name="_csrf" value="${chrome.csrf}" />
        <label for="key-name">Name</label><input id="key-name" name="name" type="text" required maxlength="100" />
        <label for="key-role">Role <span class="muted">(never higher than yours)</span></label>
        <select id="key-role" name="role">
          ${roles.map((r) => html`<option value="${r}" ${r === 'editor' ? html`selected` : ''}>${r}</option>`)}
        </select>
        <p><button type="submit">Create key</button></p>
      </form>`,
    notices,
  );
}
