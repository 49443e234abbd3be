/** Dashboard pages (server-rendered, accessible, no external assets). */
import type { ApiKeyView } from '../../domain/workspaces/workspaces.service.ts';
import type { AuditView } from '../../domain/audit/audit.service.ts';
import type { CustomDomainView } from '../../domain/brand/custom-domains.service.ts';
import type { ConnectedAppView } from '../../auth/oidc/connected-apps.ts';
import type { CreditBalance } from '../../domain/credits/credits.service.ts';
import type { CallCodeView } from '../../domain/profiles/call-codes.service.ts';
import { ROLES, roleAtLeast, type Role } from '../../domain/workspaces/roles.ts';
import { html, page, type SafeHtml } from '../../views/html.ts';

export type Notice = { kind: 'ok' | 'error' | 'warn'; text: string };

export interface Chrome {
  csrf: string;
  userEmail: string;
  /** Platform operators also see the operator pages (call codes). */
  operator?: boolean;
  workspaces: { id: string; name: string; role: Role }[];
  current?: { id: string; name: string; role: Role };
}

function header(chrome: Chrome): SafeHtml {
  const current = chrome.current;
  const links: [string, string, Role][] = current
    ? [
        ['Overview', `/w/${current.id}`, 'viewer'],
        ['Members', `/w/${current.id}/members`, 'viewer'],
        ['API keys', `/w/${current.id}/keys`, 'admin'],
        ['Custom domains', `/w/${current.id}/domains`, 'admin'],
        ['Connected apps', `/w/${current.id}/apps`, 'admin'],
        ['Audit log', `/w/${current.id}/audit`, 'admin'],
        ['Credits', `/w/${current.id}/credits`, 'viewer'],
      ]
    : [];
  return html`<header>
    <a class="brand" href="/workspaces">Campaign platform</a>
    <nav aria-label="Workspace">
      ${links
        .filter(([, , minimum]) => current && roleAtLeast(current.role, minimum))
        .map(([label, href]) => html`<a href="${href}">${label}</a>`)}
      ${chrome.operator ? html`<a href="/operator/call-codes">Call codes</a>` : ''}
    </nav>
    <form method="get" action="/switch" class="inline">
      <label class="inline" for="switch-ws" style="color:#fff;font-weight:400">Workspace</label>
      <select id="switch-ws" name="workspace" style="width:auto">
        ${chrome.workspaces.map((w) => html`<option value="${w.id}" ${current?.id === w.id ? html`selected` : ''}>${w.name}</option>`)}
      </select>
      <button class="secondary" type="submit">Switch</button>
    </form>
    <form method="post" action="/signout">
      <input type="hidden" name="_csrf" value="${chrome.csrf}" /><span class="muted" style="color:#cfd6de"
        >${chrome.userEmail}</span
      >
      <button class="link" type="submit">Sign out</button>
    </form>
  </header>`;
}

function shell(title: string, chrome: Chrome, body: SafeHtml, notices: Notice[] = []): string {
  return page({ title, header: header(chrome), body, notices });
}

export function signUpPage(view: { csrf: string; email?: string; name?: string; notices?: Notice[] }): string {
  return page({
    title: 'Create your account',
    notices: view.notices ?? [],
    body: html`<div class="card">
      <h1>Create your account</h1>
      <form method="post" action="/signup">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <label for="name">Your name</label
        ><input
          id="name"
          name="name"
          type="text"
          autocomplete="name"
          required
          maxlength="200"
          value="${view.name ?? ''}"
        />
        <label for="email">Email</label
        ><input id="email" name="email" type="email" autocomplete="email" required value="${view.email ?? ''}" />
        <label for="password">Password <span class="muted">(at least 10 characters)</span></label
        ><input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" />
        <p><button type="submit">Create account</button></p>
      </form>
      <p>Already have an account? <a href="/signin">Sign in</a>.</p>
    </div>`,
  });
}

export function signInPage(view: { csrf: string; email?: string; next?: string; notices?: Notice[] }): string {
  return page({
    title: 'Sign in',
    notices: view.notices ?? [],
    body: html`<div class="card">
      <h1>Sign in</h1>
      <form method="post" action="/signin">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <input type="hidden" name="next" value="${view.next ?? ''}" />
        <label for="email">Email</label
        ><input id="email" name="email" type="email" autocomplete="username" required value="${view.email ?? ''}" />
        <label for="password">Password</label
        ><input id="password" name="password" type="password" autocomplete="current-password" required />
        <p><button type="submit">Sign in</button></p>
      </form>
      <p>New here? <a href="/signup">Create an account</a>.</p>
    </div>`,
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
        <li><strong>admin</strong>: also manages API keys, members and connected apps, and reads the audit log</li>
        <li><strong>owner</strong>: also manages credits and can delete the workspace</li>
      </ul>`,
    notices,
  );
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

export function notFoundPage(chrome: Chrome | null, what: string): string {
  const body = html`<div class="card">
    <h1>Not found</h1>
    <p>${what}</p>
    <p><a href="/workspaces">Back to your workspaces</a></p>
  </div>`;
  return chrome ? shell('Not found', chrome, body) : page({ title: 'Not found', body });
}

export function forbiddenPage(chrome: Chrome, message: string): string {
  return shell(
    'Not allowed',
    chrome,
    html`<div class="card" role="alert">
      <h1>Not allowed</h1>
      <p>${message}</p>
    </div>`,
  );
}
