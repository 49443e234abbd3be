/**
 * What every dashboard page shares: the header (workspace navigation, switcher, sign-out), the page shell around
 * a page's body, and the "not found" and "not allowed" pages the guards answer with. Server-rendered,
 * accessible, no external assets.
 */
import { roleAtLeast, type Role } from '../../domain/workspaces/roles.ts';
import { html, page, type SafeHtml } from '../../views/html.ts';

export type Notice = { kind: 'ok' | 'error' | 'warn'; text: string };

export interface Chrome {
  csrf: string;
  userEmail: string;
  /** Platform operators also see the operator pages (call codes). */
  operator?: boolean;
  workspaces: { id: string; name: string; role: Role }[];
  /** The request's path, so the navigation can mark the section the page belongs to. */
  path?: string;
  current?: { id: string; name: string; role: Role };
}

/**
 * The workspace navigation, in the order people work: what the agents made and what it does first, settings
 * last. Each entry: label, path under `/w/:id`, and the least role that sees it (the page checks again).
 */
const NAV: readonly (readonly [label: string, path: string, minimum: Role])[] = [
  ['Overview', '', 'viewer'],
  ['Campaigns', '/campaigns', 'viewer'],
  ['Jobs', '/jobs', 'viewer'],
  ['Analytics', '/analytics', 'viewer'],
  ['Brand kit', '/brand', 'viewer'],
  ['Products', '/products', 'viewer'],
  ['Media', '/media', 'viewer'],
  ['Surfaces', '/surfaces', 'viewer'],
  ['Members', '/members', 'viewer'],
  ['API keys', '/keys', 'admin'],
  ['Custom domains', '/domains', 'admin'],
  ['Channels', '/channels', 'viewer'],
  ['Connected apps', '/apps', 'admin'],
  ['Audit log', '/audit', 'admin'],
  ['Credits', '/credits', 'viewer'],
];

function header(chrome: Chrome): SafeHtml {
  const current = chrome.current;
  const links = current
    ? NAV.map(([label, path, minimum]) => [label, `/w/${current.id}${path}`, minimum] as const)
    : [];
  const here = (href: string, index: number) =>
    chrome.path === href || (index > 0 && chrome.path?.startsWith(`${href}/`)) ? html`aria-current="page"` : '';
  return html`<header class="console">
    <div class="bar">
      <a class="brand" href="/workspaces">Campaign platform</a>
      <form method="get" action="/switch" class="inline">
        <label class="inline" for="switch-ws" style="color:#fff;font-weight:400">Workspace</label>
        <select id="switch-ws" name="workspace" style="width:auto">
          ${chrome.workspaces.map((w) => html`<option value="${w.id}" ${current?.id === w.id ? html`selected` : ''}>${w.name}</option>`)}
        </select>
        <button class="secondary" type="submit">Switch</button>
      </form>
      <form method="post" action="/signout" class="who">
        <input type="hidden" name="_csrf" value="${chrome.csrf}" /><span class="muted" style="color:#cfd6de"
          >${chrome.userEmail}</span
        >
        <a href="/account">Account</a>
        <button class="link" type="submit">Sign out</button>
      </form>
    </div>
    <nav aria-label="Workspace">
      ${links
        .filter(([, , minimum]) => current && roleAtLeast(current.role, minimum))
        .map(([label, href], index) => html`<a href="${href}" ${here(href, index)}>${label}</a>`)}
      ${chrome.operator ? html`<a href="/operator/call-codes">Call codes</a>` : ''}
    </nav>
  </header>`;
}

export function shell(title: string, chrome: Chrome, body: SafeHtml, notices: Notice[] = [], head?: SafeHtml): string {
  return page({ title, header: header(chrome), body, notices, ...(head ? { head } : {}) });
}

/**
 * A table that reads on a phone: below 640 px each row becomes a block and each cell shows its column's label
 * (CSS `table.stack`), instead of a table wider than the screen.
 */
export function stackedTable(columns: readonly string[], rows: readonly (readonly unknown[])[]): SafeHtml {
  return html`<table class="stack">
    <thead>
      <tr>
        ${columns.map((column) => html`<th scope="col">${column}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (row) =>
          html`<tr>
            ${row.map((cell, index) => html`<td data-label="${columns[index]}">${cell}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;
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
