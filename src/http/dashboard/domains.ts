/**
 * A workspace's custom domains for the brand site: add one, prove control of it (DNS TXT record or HTTP token
 * file), remove it. Who may point a domain at the brand site is an admin matter, like API keys. The custom
 * domains service writes its own audit lines.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Permission } from '../../auth/permissions.ts';
import { MAX_CUSTOM_DOMAINS_PER_WORKSPACE, type CustomDomainView } from '../../domain/brand/custom-domains.service.ts';
import { brandSiteUrl } from '../hosts.ts';
import { html } from '../../views/html.ts';
import { shell, type Chrome, type Notice } from './chrome.ts';
import { state, type DashboardKit } from './kit.ts';

export function domainRoutes(router: Router, kit: DashboardKit): void {
  const { em, sendHtml } = kit;
  const { config } = kit.container;
  const { workspaces, customDomains } = kit.container.services;

  const manageDomains: Permission = 'domains:manage';
  const domainScope = (ctx: Context) => kit.scopeOf(ctx);
  const requestFacts = (ctx: Context) => ({ ip: ctx.ip, requestId: (ctx.state.requestId as string) ?? null });
  const domainsPage = async (ctx: Context, notices: Notice[] = []) => {
    const ws = state(ctx).workspace!;
    const workspace = await workspaces.requireWorkspace(em(), ws.id);
    sendHtml(
      ctx,
      customDomainsPage(
        state(ctx).chrome,
        {
          domains: await customDomains.list(domainScope(ctx)),
          brandSiteHost: new URL(brandSiteUrl(config, workspace.slug)).hostname,
          maxDomains: MAX_CUSTOM_DOMAINS_PER_WORKSPACE,
        },
        notices,
      ),
    );
  };
  router.get('/w/:workspaceId/domains', ...kit.workspacePage(manageDomains), (ctx) => domainsPage(ctx));

  router.post('/w/:workspaceId/domains', ...kit.workspaceAction(manageDomains, domainsPage), async (ctx) => {
    const body = ctx.request.body as Record<string, string>;
    const domain = await customDomains.add(domainScope(ctx), String(body.hostname ?? ''), requestFacts(ctx));
    await domainsPage(ctx, [
      { kind: 'ok', text: `Added ${domain.hostname}. Publish one of the proofs below, then verify it.` },
    ]);
  });

  router.post(
    '/w/:workspaceId/domains/:domainId/verify',
    ...kit.workspaceAction(manageDomains, domainsPage),
    async (ctx) => {
      const { domain, verified, method } = await customDomains.verify(
        domainScope(ctx),
        ctx.params.domainId!,
        requestFacts(ctx),
      );
      await domainsPage(ctx, [
        verified
          ? {
              kind: 'ok',
              text: method
                ? `${domain.hostname} is verified (${method === 'dns' ? 'DNS TXT record' : 'HTTP token file'}). It serves the brand site now; pages are being republished with it as their address.`
                : `${domain.hostname} was already verified.`,
            }
          : { kind: 'error', text: `${domain.hostname} is not verified yet: ${domain.lastError ?? 'no proof found'}` },
      ]);
    },
  );

  router.post(
    '/w/:workspaceId/domains/:domainId/remove',
    ...kit.workspaceAction(manageDomains, domainsPage),
    async (ctx) => {
      const domain = await customDomains.remove(domainScope(ctx), ctx.params.domainId!, requestFacts(ctx));
      await domainsPage(ctx, [{ kind: 'ok', text: `Removed ${domain.hostname}. It no longer serves the brand site.` }]);
    },
  );
}

const minute = (iso: string | null) => (iso ? iso.slice(0, 16).replace('T', ' ') : '—');

export function customDomainsPage(
  chrome: Chrome,
  view: { domains: CustomDomainView[]; brandSiteHost: string; maxDomains: number },
  notices: Notice[] = [],
): string {
  const ws = chrome.current!;
  const pending = view.domains.filter((d) => d.status === 'pending');
  return shell(
    'Custom domains',
    chrome,
    html`<h1>Custom domains</h1>
      <p>
        The brand site is always at <code>${view.brandSiteHost}</code>. Add up to ${view.maxDomains} domains of your
        own: each one serves the brand site once you prove you control it, and the first verified domain becomes the
        address every page links to. Until then it answers “not found”.
      </p>
      ${
        view.domains.length
          ? html`<table>
              <thead>
                <tr>
                  <th scope="col">Domain</th>
                  <th scope="col">Status</th>
                  <th scope="col">Last check (UTC)</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                ${view.domains.map(
                  (d) =>
                    html`<tr id="domain-${d.id}">
                      <td><code>${d.hostname}</code></td>
                      <td>
                        ${
                          d.status === 'verified'
                            ? html`<strong>verified</strong>
                                <span class="muted"
                                  >by ${d.verifiedBy === 'dns' ? 'DNS TXT record' : 'HTTP token file'},
                                  ${minute(d.verifiedAt)}</span
                                >`
                            : html`<strong>pending</strong>${
                                  d.lastError ? html`<br /><span class="muted">${d.lastError}</span>` : ''
                                }`
                        }
                      </td>
                      <td>${minute(d.lastCheckedAt)}</td>
                      <td>
                        ${
                          d.status === 'pending'
                            ? html`<form method="post" action="/w/${ws.id}/domains/${d.id}/verify">
                                <input type="hidden" name="_csrf" value="${chrome.csrf}" /><button type="submit">
                                  Verify ${d.hostname} now
                                </button>
                              </form>`
                            : ''
                        }
                        <form method="post" action="/w/${ws.id}/domains/${d.id}/remove">
                          <input type="hidden" name="_csrf" value="${chrome.csrf}" /><button
                            class="secondary"
                            type="submit"
                          >
                            Remove ${d.hostname}
                          </button>
                        </form>
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>No custom domains yet.</p>`
      }
      ${pending.map(
        (d) =>
          html`<section class="card" style="margin-top:24px" aria-labelledby="prove-${d.id}">
            <h2 id="prove-${d.id}" style="margin-top:0">Prove you control ${d.hostname}</h2>
            <p>Publish either of these, then press “Verify ${d.hostname} now”. DNS changes can take a while to show.</p>
            <h3>Option 1: a DNS TXT record</h3>
            <table>
              <tbody>
                <tr>
                  <th scope="row">Name</th>
                  <td><code class="dns-name">${d.txtRecord.name}</code></td>
                </tr>
                <tr>
                  <th scope="row">Type</th>
                  <td><code>TXT</code></td>
                </tr>
                <tr>
                  <th scope="row">Value</th>
                  <td><code class="dns-value">${d.txtRecord.value}</code></td>
                </tr>
              </tbody>
            </table>
            <h3>Option 2: a token file on the domain's web server</h3>
            <p>
              Serve <code class="http-url">${d.httpTokenUrl}</code> over plain HTTP (no redirect) with this content:
            </p>
            <code class="secret http-token">${d.verificationToken}</code>
            <h3>Then send visitors here</h3>
            <p>
              Point <code>${d.hostname}</code> at the brand site: a <code>CNAME</code> record to
              <code>${view.brandSiteHost}</code> (or the same A/AAAA records it has).
            </p>
          </section>`,
      )}
      ${
        view.domains.length < view.maxDomains
          ? html`<h2>Add a domain</h2>
              <form method="post" action="/w/${ws.id}/domains" class="card">
                <input type="hidden" name="_csrf" value="${chrome.csrf}" />
                <label for="domain-hostname"
                  >Domain <span class="muted">(host name only, e.g. shop.example.com)</span></label
                ><input id="domain-hostname" name="hostname" type="text" required maxlength="253" autocomplete="off" />
                <p><button type="submit">Add domain</button></p>
              </form>`
          : html`<p class="muted">This workspace has ${view.maxDomains} domains, the most it can have.</p>`
      }`,
    notices,
  );
}
