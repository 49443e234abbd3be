/** A workspace's audit log, newest first, 50 entries a page. */
import type Router from '@koa/router';
import type { AuditView } from '../../domain/audit/audit.service.ts';
import { html } from '../../views/html.ts';
import { shell, type Chrome } from './chrome.ts';
import { state, type DashboardKit } from './kit.ts';

export function auditLogRoutes(router: Router, kit: DashboardKit): void {
  const { em, sendHtml, audit } = kit;

  router.get('/w/:workspaceId/audit', ...kit.workspacePage('audit:read'), async (ctx) => {
    const ws = state(ctx).workspace!;
    const before = typeof ctx.query.before === 'string' ? ctx.query.before.split('~') : null;
    const events = await audit.list(em(), ws.id, {
      limit: 50,
      ...(before && before.length === 2 && !Number.isNaN(Date.parse(before[0]!))
        ? { before: { createdAt: new Date(before[0]!), id: before[1]! } }
        : {}),
    });
    const last = events.at(-1);
    sendHtml(
      ctx,
      auditPage(
        state(ctx).chrome,
        events,
        events.length === 50 && last ? `/w/${ws.id}/audit?before=${encodeURIComponent(`${last.at}~${last.id}`)}` : null,
      ),
    );
  });
}

export function auditPage(chrome: Chrome, events: AuditView[], nextHref: string | null): string {
  return shell(
    'Audit log',
    chrome,
    html`<h1>Audit log</h1>
      <table>
        <thead>
          <tr>
            <th scope="col">When (UTC)</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Outcome</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          ${events.map(
            (e) =>
              html`<tr>
                <td>${e.at.slice(0, 19).replace('T', ' ')}</td>
                <td><code>${e.actor}</code></td>
                <td>${e.action}</td>
                <td>${e.target ?? '—'}</td>
                <td>${e.outcome}</td>
                <td><code>${JSON.stringify(e.details)}</code></td>
              </tr>`,
          )}
        </tbody>
      </table>
      ${nextHref ? html`<p><a href="${nextHref}">Older entries</a></p>` : ''}`,
  );
}
