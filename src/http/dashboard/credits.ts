/**
 * A workspace's credit balance, and for owners its ledger: newest first, 50 entries a page, filtered by kind and
 * dates (a GET form, kept by "Older entries"), who caused each entry by name, and why credits went where — each
 * entry that paid for a job links to the job and to the campaign it worked on.
 */
import type Router from '@koa/router';
import { can } from '../../auth/permissions.ts';
import { createPartyNames, humanise, type PartyName } from '../../domain/audit/party-names.ts';
import { CREDIT_ENTRY_KINDS, type CreditEntryKind } from '../../domain/credits/credit-ledger-entry.entity.ts';
import type { CreditBalance, LedgerLine } from '../../domain/credits/credits.service.ts';
import { html, type SafeHtml } from '../../views/html.ts';
import { shell, stackedTable, type Chrome, type Notice } from './chrome.ts';
import {
  cursorOf,
  dayRange,
  dayRangeFields,
  filterSubmit,
  HISTORY_STYLE,
  olderHref,
  partyCell,
  queryText,
  utcMinute,
} from './history-filters.ts';
import { state, type DashboardKit } from './kit.ts';

const PAGE_SIZE = 50;

/** What each kind of entry means, in words (the ledger's accounts are explained once, under the table). */
const KIND_TEXT: Record<CreditEntryKind, string> = {
  grant: 'Granted',
  reserve: 'Reserved for a job',
  capture: 'Spent by a job step',
  release: 'Returned (unused)',
  spend: 'Spent',
  revoke: 'Taken back',
};

/** Whether an entry adds to (+), takes from (−) or moves within (±0 spendable) what the workspace can spend. */
function signed(line: LedgerLine): string {
  if (line.to === 'available') return `+${line.amount}`;
  if (line.from === 'available') return `−${line.amount}`;
  return `${line.amount}`;
}

export interface LedgerView {
  lines: LedgerLine[];
  names: Map<string, PartyName>;
  filter: { kind: string; from: string; to: string };
  nextHref: string | null;
}

export function creditRoutes(router: Router, kit: DashboardKit): void {
  const { em, sendHtml } = kit;
  const { credits } = kit.container.services;
  const parties = createPartyNames();

  router.get('/w/:workspaceId/credits', ...kit.workspacePage('workspace:read'), async (ctx) => {
    const ws = state(ctx).workspace!;
    const balance = await credits.balance(em(), ws.id);
    if (!can(ws.role, 'credits:manage')) return sendHtml(ctx, creditsPage(state(ctx).chrome, balance, null));
    const kindText = queryText(ctx, 'kind');
    const kind = (CREDIT_ENTRY_KINDS as readonly string[]).includes(kindText)
      ? (kindText as CreditEntryKind)
      : undefined;
    const days = dayRange(ctx);
    const before = cursorOf(ctx);
    const lines = await credits.ledger(em(), ws.id, {
      limit: PAGE_SIZE,
      filter: {
        ...(kind ? { kind } : {}),
        ...(days.from ? { from: days.from } : {}),
        ...(days.to ? { to: days.to } : {}),
      },
      ...(before ? { before } : {}),
    });
    const names = await parties.actors(
      em(),
      ws.id,
      lines.map((line) => line.actor),
    );
    const shownFilter = { kind: kind ?? '', from: days.fromText, to: days.toText };
    const last = lines.at(-1);
    sendHtml(
      ctx,
      creditsPage(
        state(ctx).chrome,
        balance,
        {
          lines,
          names,
          filter: shownFilter,
          nextHref: lines.length === PAGE_SIZE && last ? olderHref(`/w/${ws.id}/credits`, shownFilter, last) : null,
        },
        days.problems.map((text) => ({ kind: 'warn', text })),
      ),
    );
  });
}

/** What an entry was for: the job (linked to its page) and the campaign it worked on, else the note. */
function purposeCell(workspaceId: string, line: LedgerLine): SafeHtml | '' {
  const parts: SafeHtml[] = [];
  if (line.job) {
    parts.push(html`<a href="/w/${workspaceId}/jobs/${line.job.id}">${humanise(line.job.kind)} job</a>`);
  }
  if (line.campaign) {
    parts.push(html`for <a href="/w/${workspaceId}/campaigns/${line.campaign.id}">${line.campaign.name}</a>`);
  }
  if (line.description) parts.push(html`<span class="muted">${line.description}</span>`);
  if (!parts.length && line.reference) parts.push(html`<span class="muted">${line.reference}</span>`);
  if (!parts.length) return '';
  // One element, so the phone layout (label beside value) keeps the sentence on one line.
  return html`<span>${parts.map((part, index) => html`${index ? ' ' : ''}${part}`)}</span>`;
}

export function creditsPage(
  chrome: Chrome,
  balance: CreditBalance,
  ledger: LedgerView | null,
  notices: Notice[] = [],
): string {
  const ws = chrome.current!;
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
        ledger
          ? html`<h2>Ledger</h2>
              <form method="get" action="/w/${ws.id}/credits" class="card filters" aria-label="Filter the ledger">
                <div class="row">
                  <div>
                    <label for="f-kind">Kind of entry</label>
                    <select id="f-kind" name="kind">
                      <option value="">Every kind</option>
                      ${CREDIT_ENTRY_KINDS.map(
                        (k) =>
                          html`<option value="${k}" ${k === ledger.filter.kind ? html`selected` : ''}>
                            ${KIND_TEXT[k]}
                          </option>`,
                      )}
                    </select>
                  </div>
                  ${dayRangeFields(ledger.filter)}
                </div>
                ${filterSubmit(`/w/${ws.id}/credits`, Object.values(ledger.filter).some(Boolean))}
              </form>
              ${
                ledger.lines.length
                  ? stackedTable(
                      ['When (UTC)', 'Entry', 'Credits', 'What for', 'Caused by'],
                      ledger.lines.map((line) => [
                        utcMinute(line.at),
                        html`${KIND_TEXT[line.kind]}<br /><span class="muted">${line.from} → ${line.to}</span>`,
                        html`<span class="amount">${signed(line)}</span>`,
                        purposeCell(ws.id, line),
                        partyCell(ledger.names.get(line.actor), line.actor),
                      ]),
                    )
                  : html`<p>No ledger entries match.</p>`
              }
              ${ledger.nextHref ? html`<p class="pager"><a href="${ledger.nextHref}">Older entries</a></p>` : ''}
              <p class="muted">
                Credits move between four accounts: <em>available</em> (spendable), <em>held</em> (reserved by a running
                job), <em>spent</em>, and <em>external</em> (outside the workspace). “+” and “−” show what an entry did
                to the spendable balance.
              </p>`
          : html`<p class="muted">Only owners see the ledger.</p>`
      }`,
    notices,
    HISTORY_STYLE,
  );
}
