/**
 * A workspace's audit log, newest first, 50 entries a page: who (by name and email, not id), what, on what,
 * with what outcome, and the facts of each line as "key: value" pairs. Filters (who, action, outcome, dates)
 * are a GET form, so a filtered view is a link; "Older entries" keeps them. The filtering is done by the audit
 * service on indexed columns (audit.service.ts).
 */
import type Router from '@koa/router';
import { AUDIT_OUTCOMES, type AuditOutcome } from '../../domain/audit/audit-event.entity.ts';
import { WORKFLOW_ACTORS, type AuditFilter, type AuditView } from '../../domain/audit/audit.service.ts';
import { createPartyNames, type PartyName } from '../../domain/audit/party-names.ts';
import { html, type SafeHtml } from '../../views/html.ts';
import { shell, stackedTable, type Chrome, type Notice } from './chrome.ts';
import {
  cursorOf,
  dayRange,
  dayRangeFields,
  dotted,
  filterSubmit,
  HISTORY_STYLE,
  olderHref,
  partyCell,
  queryText,
  utcMinute,
} from './history-filters.ts';
import { state, type DashboardKit } from './kit.ts';

const PAGE_SIZE = 50;

export interface AuditPageView {
  events: AuditView[];
  /** Names of actors and of the ids the lines name (targets). */
  names: Map<string, PartyName>;
  /** The choices of the "Who" filter: actor value → name. */
  actorChoices: [string, PartyName][];
  filter: { who: string; action: string; outcome: string; from: string; to: string };
  nextHref: string | null;
}

export function auditLogRoutes(router: Router, kit: DashboardKit): void {
  const { em, sendHtml, audit } = kit;
  const parties = createPartyNames();

  router.get('/w/:workspaceId/audit', ...kit.workspacePage('audit:read'), async (ctx) => {
    const ws = state(ctx).workspace!;
    const notices: Notice[] = [];
    const who = queryText(ctx, 'who');
    const action = queryText(ctx, 'action').toLowerCase();
    const outcomeText = queryText(ctx, 'outcome');
    const outcome = (AUDIT_OUTCOMES as readonly string[]).includes(outcomeText)
      ? (outcomeText as AuditOutcome)
      : undefined;
    const days = dayRange(ctx);
    notices.push(...days.problems.map((text) => ({ kind: 'warn' as const, text })));
    const filter: AuditFilter = {
      ...(who ? { actor: who } : {}),
      ...(action ? { action } : {}),
      ...(outcome ? { outcome } : {}),
      ...(days.from ? { from: days.from } : {}),
      ...(days.to ? { to: days.to } : {}),
    };
    const before = cursorOf(ctx);
    const events = await audit.list(em(), ws.id, { limit: PAGE_SIZE, filter, ...(before ? { before } : {}) });
    const known = await parties.knownActors(em(), ws.id);
    const [actorNames, targetNames] = await Promise.all([
      parties.actors(em(), ws.id, [
        ...known,
        ...events.map((e) => e.actor),
        ...(who && who !== WORKFLOW_ACTORS ? [who] : []),
      ]),
      parties.namesOfIds(
        em(),
        ws.id,
        events.flatMap((e) => (e.targetId ? [e.targetId] : [])),
      ),
    ]);
    const shownFilter = { who, action, outcome: outcome ?? '', from: days.fromText, to: days.toText };
    const last = events.at(-1);
    sendHtml(
      ctx,
      auditPage(
        state(ctx).chrome,
        {
          events,
          names: new Map([...actorNames, ...targetNames]),
          actorChoices: [
            ...[...new Set(known)].map((actor) => [actor, actorNames.get(actor)!] as [string, PartyName]),
            [WORKFLOW_ACTORS, { label: 'Platform workflows (background jobs)', detail: null, kind: 'workflow' }],
          ],
          filter: shownFilter,
          nextHref: events.length === PAGE_SIZE && last ? olderHref(`/w/${ws.id}/audit`, shownFilter, last) : null,
        },
        notices,
      ),
    );
  });
}

/** A line's facts as "key: value" pairs; nested values as compact JSON. */
function detailsList(details: Record<string, unknown>): SafeHtml | string {
  const entries = Object.entries(details).filter(([, value]) => value !== null && value !== undefined && value !== '');
  if (!entries.length) return '';
  return html`<dl class="kv">
    ${entries.map(
      ([key, value]) =>
        html`<dt>
            ${key
              .replace(/([a-z])([A-Z])/g, '$1 $2')
              .replace(/_/g, ' ')
              .toLowerCase()}
          </dt>
          <dd>${typeof value === 'object' ? JSON.stringify(value) : String(value)}</dd>`,
    )}
  </dl>`;
}

function targetCell(event: AuditView, names: Map<string, PartyName>): SafeHtml | string {
  if (!event.targetType) return '';
  const name = event.targetId ? names.get(event.targetId) : undefined;
  if (name) return html`${name.label}${name.detail ? html`<br /><span class="muted">${name.detail}</span>` : ''}`;
  return html`${event.targetType.replace(/_/g, ' ')}<br /><span class="muted">${event.targetId ?? ''}</span>`;
}

const OUTCOME_BADGE: Record<AuditOutcome, string> = { success: 'ok', denied: 'error', failed: 'warn' };

export function auditPage(chrome: Chrome, view: AuditPageView, notices: Notice[] = []): string {
  const ws = chrome.current!;
  const { filter } = view;
  const filtered = Object.values(filter).some(Boolean);
  return shell(
    'Audit log',
    chrome,
    html`<h1>Audit log</h1>
      <form method="get" action="/w/${ws.id}/audit" class="card filters" aria-label="Filter the audit log">
        <div class="row">
          <div>
            <label for="f-who">Who</label>
            <select id="f-who" name="who">
              <option value="">Anyone</option>
              ${view.actorChoices.map(
                ([value, name]) =>
                  html`<option value="${value}" ${value === filter.who ? html`selected` : ''}>
                    ${name.label}${name.detail ? ` — ${name.detail}` : ''}
                  </option>`,
              )}
            </select>
          </div>
          <div>
            <label for="f-action">Action</label>
            <input
              id="f-action"
              name="action"
              type="text"
              value="${filter.action}"
              placeholder="member or member.add"
            />
          </div>
          <div>
            <label for="f-outcome">Outcome</label>
            <select id="f-outcome" name="outcome">
              <option value="">Any</option>
              ${AUDIT_OUTCOMES.map((o) => html`<option value="${o}" ${o === filter.outcome ? html`selected` : ''}>${o}</option>`)}
            </select>
          </div>
          ${dayRangeFields(filter)}
        </div>
        ${filterSubmit(`/w/${ws.id}/audit`, filtered)}
      </form>
      ${
        view.events.length
          ? stackedTable(
              ['When (UTC)', 'Who', 'Action', 'Target', 'Outcome', 'Details'],
              view.events.map((e) => [
                utcMinute(e.at),
                partyCell(view.names.get(e.actor), e.actor),
                dotted(e.action),
                targetCell(e, view.names),
                html`<span class="badge ${OUTCOME_BADGE[e.outcome]}">${e.outcome}</span>`,
                detailsList(e.details),
              ]),
            )
          : html`<p>${filtered ? 'No entries match these filters.' : 'Nothing has been recorded yet.'}</p>`
      }
      ${view.nextHref ? html`<p class="pager"><a href="${view.nextHref}">Older entries</a></p>` : ''}`,
    notices,
    HISTORY_STYLE,
  );
}
