/**
 * The operator pages: call codes, which select a tool profile. Platform operators only; everyone else gets
 * "not found", so the pages do not reveal that they exist.
 */
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { CallCodeView } from '../../domain/profiles/call-codes.service.ts';
import { PROFILES } from '../../mcp/profiles.ts';
import { html } from '../../views/html.ts';
import { notFoundPage, shell, type Chrome, type Notice } from './chrome.ts';
import { state, type DashboardKit } from './kit.ts';

export function operatorRoutes(router: Router, kit: DashboardKit): void {
  const { em, form, sendHtml, requireSession, requireCsrf, withNotices } = kit;
  const { workspaces, callCodes: codes } = kit.container.services;

  const requireOperator: Middleware = async (ctx, next) => {
    if (!state(ctx).session.user.getEntity().isOperator) {
      sendHtml(ctx, notFoundPage(state(ctx).chrome, 'There is no such page.'), 404);
      return;
    }
    await next();
  };
  const selectable = PROFILES.filter((p) => p.requiresCallCode);
  const callCodes = async (ctx: Context, notices: Notice[] = [], issued?: { code: string; profile: string }) => {
    sendHtml(
      ctx,
      callCodesPage(state(ctx).chrome, { codes: await codes.list(em()), profiles: selectable, issued }, notices),
    );
  };
  router.get('/operator/call-codes', requireSession, requireOperator, (ctx) => callCodes(ctx));
  // Operator rights are checked before the form is read: a non-operator gets "not found", never a CSRF answer.
  const operatorAction = [requireSession, requireOperator, form, requireCsrf, withNotices(callCodes)];

  router.post('/operator/call-codes', ...operatorAction, async (ctx) => {
    const body = ctx.request.body as Record<string, string>;
    const workspaceId = body.workspaceId?.trim() || null;
    if (workspaceId) await workspaces.requireWorkspace(em(), workspaceId);
    const { code, callCode } = await codes.issue(
      em(),
      { profile: body.profile ?? '', workspaceId, note: body.note?.trim() || null },
      kit.actorOf(ctx),
    );
    // The code goes into this one response only (never a redirect, a log or the database).
    await callCodes(ctx, [], { code, profile: callCode.profile });
  });

  router.post('/operator/call-codes/:id/revoke', ...operatorAction, async (ctx) => {
    const callCode = await codes.revoke(em(), ctx.params.id!);
    await callCodes(ctx, [
      {
        kind: 'ok',
        text: `Revoked ${callCode.prefix}… (${callCode.profile}); connections using it fall back to the discovery profile.`,
      },
    ]);
  });
}

export function callCodesPage(
  chrome: Chrome,
  view: {
    codes: CallCodeView[];
    profiles: readonly { name: string; description: string; tools: readonly string[] }[];
    issued?: { code: string; profile: string };
  },
  notices: Notice[] = [],
): string {
  return shell(
    'Call codes',
    chrome,
    html`<h1>Call codes</h1>
      <p class="muted">
        A call code selects a tool profile: <code>/api/mcp?profile=&lt;code&gt;</code>. It changes which tools a
        connection sees, never what its role may do. Codes are stored hashed and shown once.
      </p>
      ${
        view.issued
          ? html`<div class="card" role="status">
              <h2>Code for ${view.issued.profile} issued</h2>
              <p>Copy it now: this is the only time it is shown.</p>
              <code class="secret" id="new-call-code">${view.issued.code}</code>
            </div>`
          : ''
      }
      <table>
        <thead>
          <tr>
            <th scope="col">Code</th>
            <th scope="col">Profile</th>
            <th scope="col">Workspace</th>
            <th scope="col">Note</th>
            <th scope="col">Issued</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          ${view.codes.map(
            (c) =>
              html`<tr>
                <td><code>${c.prefix}…</code></td>
                <td>${c.profile}</td>
                <td>${c.workspaceId ?? 'any'}</td>
                <td>${c.note ?? ''}</td>
                <td>${c.createdAt.slice(0, 16).replace('T', ' ')}</td>
                <td>
                  ${
                    c.revokedAt
                      ? html`revoked ${c.revokedAt.slice(0, 16).replace('T', ' ')}`
                      : html`<form method="post" action="/operator/call-codes/${c.id}/revoke">
                          <input type="hidden" name="_csrf" value="${chrome.csrf}" /><button
                            class="secondary"
                            type="submit"
                          >
                            Revoke ${c.prefix}…
                          </button>
                        </form>`
                  }
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      <h2>Issue a code</h2>
      <form method="post" action="/operator/call-codes" class="card">
        <input type="hidden" name="_csrf" value="${chrome.csrf}" />
        <label for="cc-profile">Profile</label>
        <select id="cc-profile" name="profile">
          ${view.profiles.map((p) => html`<option value="${p.name}">${p.name} — ${p.description}</option>`)}
        </select>
        <label for="cc-workspace">Limit to workspace <span class="muted">(optional workspace id)</span></label>
        <input id="cc-workspace" name="workspaceId" type="text" maxlength="40" pattern="ws_[0-9A-Z]{26}" />
        <label for="cc-note">Note <span class="muted">(who it is for)</span></label>
        <input id="cc-note" name="note" type="text" maxlength="300" />
        <p><button type="submit">Issue code</button></p>
      </form>`,
    notices,
  );
}
