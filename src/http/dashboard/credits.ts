/** A workspace's credit balance, and its ledger for owners. */
import type Router from '@koa/router';
import { can } from '../../auth/permissions.ts';
import type { CreditBalance } from '../../domain/credits/credits.service.ts';
import { html } from '../../views/html.ts';
import { shell, type Chrome } from './chrome.ts';
import { state, type DashboardKit } from './kit.ts';

export function creditRoutes(router: Router, kit: DashboardKit): void {
  const { em, sendHtml } = kit;
  const { credits } = kit.container.services;

  router.get('/w/:workspaceId/credits', ...kit.workspacePage('workspace:read'), async (ctx) => {
    const ws = state(ctx).workspace!;
    const balance = await credits.balance(em(), ws.id);
    const entries = can(ws.role, 'credits:manage')
      ? (await credits.history(em(), ws.id, 100)).map((e) => ({
          at: e.createdAt.toISOString(),
          kind: e.kind,
          amount: e.amount,
          from: e.fromAccount,
          to: e.toAccount,
          description: e.description ?? null,
          actor: e.actor,
        }))
      : null;
    sendHtml(ctx, creditsPage(state(ctx).chrome, balance, entries));
  });
}

export function creditsPage(
  chrome: Chrome,
  balance: CreditBalance,
  entries:
    | {
        at: string;
        kind: string;
        amount: number;
        from: string;
        to: string;
        description: string | null;
        actor: string;
      }[]
    | null,
): string {
  return shell(
    'Credits',
    chrome,
    html`<h1>Credits</h1>
      <div class="card">
        <p>
          Available: <strong>${balance.available}</strong> · held by running jobs: ${balance.held} · spent:
          ${balance.spent}
        </p>
      </div>
      ${
        entries
          ? html`<h2>Ledger</h2>
              <table>
                <thead>
                  <tr>
                    <th scope="col">When (UTC)</th>
                    <th scope="col">Entry</th>
                    <th scope="col">Amount</th>
                    <th scope="col">From → to</th>
                    <th scope="col">By</th>
                    <th scope="col">Note</th>
                  </tr>
                </thead>
                <tbody>
                  ${entries.map(
                    (e) =>
                      html`<tr>
                        <td>${e.at.slice(0, 19).replace('T', ' ')}</td>
                        <td>${e.kind}</td>
                        <td>${e.amount}</td>
                        <td>${e.from} → ${e.to}</td>
                        <td><code>${e.actor}</code></td>
                        <td>${e.description ?? ''}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
          : html`<p class="muted">Only owners see the ledger.</p>`
      }`,
  );
}
