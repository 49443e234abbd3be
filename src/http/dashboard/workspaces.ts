/** The workspace list (with "create a workspace") and a workspace's overview page (with "delete it"). */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { CreditBalance } from '../../domain/credits/credits.service.ts';
import { roleAtLeast } from '../../domain/workspaces/roles.ts';
import type { Metrics } from '../../domain/analytics/analytics-reader.ts';
import type { CampaignView } from '../../domain/campaigns/campaign-view.ts';
import { kindInSentence, listJobOverview, type JobOverview } from '../../domain/jobs/job-overview.ts';
import { TASK_KINDS } from '../../mcp/tasks.ts';
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

  /**
   * The workspace's home: what waits for a person (films at a gate), what runs, the last seven days as the
   * analytics page counts them, the latest campaigns and the credits. Reads only, through the same tools and
   * job reader as the pages they link to; each read gets its own scope (a scope's unit of work is not shared
   * between concurrent queries).
   */
  const overview = async (ctx: Context, notices: Notice[] = []) => {
    const ws = state(ctx).workspace!;
    const jobsIn = (status: 'input_required' | 'running') =>
      listJobOverview(kit.scopeOf(ctx), credits, { kinds: TASK_KINDS, status, limit: 5 });
    const [workspace, balance, waiting, running, week, latest] = await Promise.all([
      workspaces.requireWorkspace(em(), ws.id),
      credits.balance(em(), ws.id),
      jobsIn('input_required'),
      jobsIn('running'),
      kit.tool<{ snapshot: { summary: Metrics } }>(ctx, 'query_analytics', { action: 'snapshot', window: '7d' }),
      kit.tool<{ campaigns: CampaignView[] }>(ctx, 'query_campaigns', { action: 'list', limit: 5 }),
    ]);
    sendHtml(
      ctx,
      overviewPage(
        state(ctx).chrome,
        {
          slug: workspace.slug,
          credits: balance,
          mcpUrl: config.urls.mcp,
          brandSiteUrl: brandSiteUrl(config, workspace.slug),
          waiting: waiting.jobs,
          running: running.jobs,
          week: week.snapshot.summary,
          latest: latest.campaigns,
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

export interface OverviewView {
  slug: string;
  credits: CreditBalance;
  mcpUrl: string;
  brandSiteUrl: string;
  /** Jobs waiting for a person (a film at its gate), newest first. */
  waiting: JobOverview[];
  running: JobOverview[];
  /** The last seven days, as `query_analytics snapshot window=7d` answers. */
  week: Metrics;
  latest: CampaignView[];
}

const OVERVIEW_STYLE = html`<style>
  .kpis {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(140px, 1fr));
    gap: 12px;
    margin: 0 0 8px;
  }
  .kpis div {
    background: #fff;
    border: 1px solid #d5d9e0;
    border-radius: 8px;
    padding: 12px 16px;
  }
  .kpis dt {
    font-size: 0.8rem;
    color: #4a515c;
    text-transform: uppercase;
    letter-spacing: 0.04em;
  }
  .kpis dd {
    margin: 4px 0 0;
    font-size: 1.5rem;
    font-weight: 700;
  }
  .home-list {
    list-style: none;
    padding: 0;
    margin: 0;
  }
  .home-list li {
    padding: 8px 0;
    border-bottom: 1px solid #e3e6ea;
    display: flex;
    gap: 8px 16px;
    flex-wrap: wrap;
    justify-content: space-between;
  }
  .home-list li:last-child {
    border-bottom: none;
  }
</style>`;

const count = (n: number) => n.toLocaleString('en-US');
const rate = (r: number | null) => (r === null ? 'n/a' : `${(r * 100).toFixed(2)}%`);

export function overviewPage(chrome: Chrome, view: OverviewView, notices: Notice[] = []): string {
  const ws = chrome.current!;
  const base = `/w/${ws.id}`;
  return shell(
    ws.name,
    chrome,
    html`<h1>${ws.name}</h1>
      <p class="muted">
        Your role: <strong>${ws.role}</strong> · brand site <a href="${view.brandSiteUrl}">${view.brandSiteUrl}</a>
      </p>
      ${
        view.waiting.length
          ? html`<section class="card" aria-labelledby="waiting">
              <h2 id="waiting">Waiting for a decision</h2>
              <ul class="home-list">
                ${view.waiting.map(
                  (job) =>
                    html`<li>
                      <span>${job.kindName}${job.purpose ? html`: ${job.purpose}` : ''}</span>
                      <a href="${base}/jobs/${job.id}">Review ${kindInSentence(job.kindName)}</a>
                    </li>`,
                )}
              </ul>
            </section>`
          : ''
      }
      <section aria-labelledby="week">
        <h2 id="week">Last 7 days</h2>
        <dl class="kpis">
          <div>
            <dt>Impressions</dt>
            <dd>${count(view.week.impressions)}</dd>
          </div>
          <div>
            <dt>Reach</dt>
            <dd>${count(view.week.reach)}</dd>
          </div>
          <div>
            <dt>Clicks</dt>
            <dd>${count(view.week.clicks)}</dd>
          </div>
          <div>
            <dt>Click-through</dt>
            <dd>${rate(view.week.clickThroughRate)}</dd>
          </div>
          <div>
            <dt>Conversions</dt>
            <dd>${count(view.week.conversions)}</dd>
          </div>
        </dl>
        <p><a href="${base}/analytics">Analytics for 7, 28 and 90 days</a></p>
      </section>
      <section aria-labelledby="latest">
        <h2 id="latest">Latest campaigns</h2>
        <div class="card">
          ${
            view.latest.length
              ? html`<ul class="home-list">
                  ${view.latest.map(
                    (campaign) =>
                      html`<li>
                        <a href="${base}/campaigns/${campaign.id}">${campaign.name}</a>
                        <span class="badge">${campaign.status}</span>
                      </li>`,
                  )}
                </ul>`
              : html`<p>No campaigns yet.</p>`
          }
          <p>
            <a href="${base}/campaigns">All campaigns</a>${
              roleAtLeast(ws.role, 'editor')
                ? html` · <a href="${base}/campaigns/new">New campaign from a brief</a>`
                : ''
            }
          </p>
        </div>
      </section>
      <section aria-labelledby="running">
        <h2 id="running">Running now</h2>
        <div class="card">
          ${
            view.running.length
              ? html`<ul class="home-list">
                  ${view.running.map(
                    (job) =>
                      html`<li>
                        <a href="${base}/jobs/${job.id}">${job.kindName}${job.purpose ? html`: ${job.purpose}` : ''}</a>
                        <span class="muted">${Math.round(job.fraction * 100)}%</span>
                      </li>`,
                  )}
                </ul>`
              : html`<p>Nothing is running.</p>`
          }
          <p><a href="${base}/jobs">All jobs</a></p>
        </div>
      </section>
      <section aria-labelledby="credits">
        <h2 id="credits">Credits</h2>
        <div class="card">
          <p>
            Available: <strong>${count(view.credits.available)}</strong>
            <span class="muted">(held by running jobs: ${count(view.credits.held)})</span> ·
            <a href="${base}/credits">Credits and ledger</a>
          </p>
        </div>
      </section>
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
    OVERVIEW_STYLE,
  );
}
