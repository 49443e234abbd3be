/**
 * What the audit log and the credit ledger share: reading their GET filters (dates, the keyset cursor) from the
 * query string, building the "older entries" link that keeps the filters, and showing who acted by name.
 */
import type { Context } from 'koa';
import type { PartyName } from '../../domain/audit/party-names.ts';
import { html, type SafeHtml } from '../../views/html.ts';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A query parameter as one trimmed string ('' when absent or repeated). */
export function queryText(ctx: Context, name: string): string {
  const value = ctx.query[name];
  return typeof value === 'string' ? value.trim().slice(0, 200) : '';
}

/**
 * The date range of a filter form (`from` and `to` are whole UTC days, both included), as the half-open range
 * the services take. A malformed day is ignored and reported, rather than answering with an error page.
 */
export function dayRange(ctx: Context): {
  from?: Date;
  to?: Date;
  fromText: string;
  toText: string;
  problems: string[];
} {
  const problems: string[] = [];
  const day = (name: 'from' | 'to'): Date | undefined => {
    const text = queryText(ctx, name);
    if (!text) return undefined;
    const at = DAY.test(text) ? new Date(`${text}T00:00:00Z`) : new Date(Number.NaN);
    if (Number.isNaN(at.getTime())) {
      problems.push(`"${text}" is not a date (use YYYY-MM-DD); that filter was ignored.`);
      return undefined;
    }
    return at;
  };
  const from = day('from');
  const toDay = day('to');
  const to = toDay ? new Date(toDay.getTime() + 24 * 60 * 60 * 1000) : undefined;
  return {
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    fromText: from ? queryText(ctx, 'from') : '',
    toText: toDay ? queryText(ctx, 'to') : '',
    problems,
  };
}

/** The keyset cursor `before=<ISO time>~<id>` of an "older entries" link, if well-formed. */
export function cursorOf(ctx: Context): { createdAt: Date; id: string } | undefined {
  const parts = queryText(ctx, 'before').split('~');
  if (parts.length !== 2 || !/^[a-z]{2,4}_[0-9A-Z]{26}$/.test(parts[1]!)) return undefined;
  const createdAt = new Date(parts[0]!);
  return Number.isNaN(createdAt.getTime()) ? undefined : { createdAt, id: parts[1]! };
}

/** The link to the next (older) page: the same filters, and the cursor after the last row shown. */
export function olderHref(
  path: string,
  filters: Record<string, string>,
  last: { at: Date | string; id: string },
): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) query.set(name, value);
  const at = typeof last.at === 'string' ? last.at : last.at.toISOString();
  query.set('before', `${at}~${last.id}`);
  return `${path}?${query.toString()}`;
}

/** "2026-11-27 18:04" in UTC, as both pages show times (on one line). */
export const utcMinute = (at: Date | string): SafeHtml =>
  html`<span class="when">${(typeof at === 'string' ? at : at.toISOString()).slice(0, 16).replace('T', ' ')}</span>`;

/** A dotted name (`mcp.manage_campaigns.publish`) that may wrap after each dot. */
export const dotted = (name: string): SafeHtml =>
  html`<code>${name.split('.').map((part, index) => html`${index ? html`.<wbr />` : ''}${part}`)}</code>`;

/** Who acted: the name, and under it (smaller) the email or what kind of actor it is. */
export function partyCell(name: PartyName | undefined, raw: string): SafeHtml {
  if (!name) return html`<span class="who">${raw}</span>`;
  return html`<span class="who"
    >${name.label}${name.detail ? html`<br /><span class="muted">${name.detail}</span>` : ''}</span
  >`;
}

/** The page's own CSS: a filter bar that wraps, and cells that break long words instead of widening the page. */
/** The UTC day range of a history filter form (audit log, credit ledger). */
export function dayRangeFields(range: { from: string; to: string }): SafeHtml {
  return html`<div>
      <label for="f-from">From (UTC day)</label>
      <input id="f-from" name="from" type="date" value="${range.from}" />
    </div>
    <div>
      <label for="f-to">To (UTC day, included)</label>
      <input id="f-to" name="to" type="date" value="${range.to}" />
    </div>`;
}

/** A history filter form's button, and a way back to everything while a filter is on. */
export function filterSubmit(clearHref: string, filtered: boolean): SafeHtml {
  return html`<p class="row">
    <button type="submit">Show matching entries</button>
    ${filtered ? html`<a href="${clearHref}">Clear filters</a>` : ''}
  </p>`;
}

export const HISTORY_STYLE = html`<style>
  /* Six columns of names, emails and facts need more than the 960 px other pages use. */
  main {
    max-width: 1200px;
  }
  .filters .row > div {
    flex: 1 1 140px;
    min-width: 0;
  }
  .filters label {
    margin-top: 4px;
  }
  .filters input[type='date'],
  .filters input[type='text'] {
    width: 100%;
    padding: 8px 10px;
    border: 1px solid #8a919c;
    border-radius: 6px;
    font: inherit;
  }
  .filters select {
    max-width: none;
  }
  table.stack td {
    overflow-wrap: anywhere;
  }
  /* Times and dotted action names break where a reader expects (between date and time, at dots), not mid-word. */
  .when {
    white-space: nowrap;
  }
  table.stack td code {
    word-break: normal;
    overflow-wrap: normal;
  }
  .who {
    display: inline-block;
    min-width: 10ch;
  }
  dl.kv {
    margin: 0;
    display: grid;
    grid-template-columns: max-content 1fr;
    gap: 0 8px;
    font-size: 0.9rem;
  }
  dl.kv dt {
    color: #4a515c;
  }
  dl.kv dd {
    margin: 0;
    overflow-wrap: anywhere;
  }
  .amount {
    font-variant-numeric: tabular-nums;
    white-space: nowrap;
  }
  @media (max-width: 640px) {
    /* Label beside value, not above it: a row of six short facts stays about six lines tall on a phone. */
    table.stack td[data-label] {
      display: grid;
      grid-template-columns: 6.5rem minmax(0, 1fr);
      gap: 0 8px;
    }
    table.stack td[data-label] > * {
      grid-column: 2;
    }
    table.stack td[data-label]::before {
      grid-column: 1;
      grid-row: 1 / span 9;
      padding-top: 3px;
    }
    table.stack td[data-label]:empty {
      display: none;
    }
  }
</style>`;
