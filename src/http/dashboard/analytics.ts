/**
 * Analytics: how the workspace's campaigns perform over the last 7, 28 or 90 days. Impressions (raw
 * deliveries) and Reach (distinct sessions) side by side and never merged; clicks, click-through rate and
 * conversions; the days as server-drawn charts with the same numbers as a table; each A/B test's verdict and
 * its decision in words; the insights; the concierge's unanswered questions; social channels once posts were
 * measured.
 *
 * Every number comes from `query_analytics` (`kit.tool`), called as the signed-in person: the page shows what an
 * agent reads for the same window, formatted the way the tool's own text formats it. Each number is printed
 * with `data-metric` (its path in the tool's answers) and `data-value` (the raw value), so a test can hold the
 * page to the tool, number by number.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { CHANNEL_METRICS } from '../../domain/channels/channel-networks.ts';
import type { Snapshot } from '../../domain/analytics/analytics-query.service.ts';
import type { Metrics } from '../../domain/analytics/analytics-reader.ts';
import type { Insight } from '../../domain/analytics/insight-rules.ts';
import type { ArmView, ExperimentPage } from '../../domain/analytics/experiments.ts';
import type { VariantVerdict } from '../../domain/analytics/statistics/decision.ts';
import { sharingReads } from '../../domain/shared/request-reads.ts';
import { dailyBarChart } from '../../views/charts.ts';
import { html, type SafeHtml } from '../../views/html.ts';
import { shell, stackedTable, type Chrome, type Notice } from './chrome.ts';
import { state, type DashboardKit } from './kit.ts';

/** The windows the page offers (the tool also knows `1d`, too short for a daily chart). */
export const PAGE_WINDOWS = ['7d', '28d', '90d'] as const;
export type PageWindow = (typeof PAGE_WINDOWS)[number];

/** The snapshot sections the page shows, asked for in one call. */
export const PAGE_SECTIONS = ['summary', 'timeseries', 'campaigns', 'concierge', 'channels'] as const;

/** An experiment of `cvg_dashboard`: the arms, their comparisons with the control, the top performer. */
export interface DashboardExperiment extends Omit<ExperimentPage['experiments'][number], 'verdict'> {
  runtime: { days: number; minDays: number; maxDays: number };
  comparisons: VariantVerdict[];
  topPerformer: { variantId: string; name: string; why: string } | null;
}

/** The three `query_analytics` answers the page is made of, as the tool returns them. */
export interface AnalyticsAnswers {
  snapshot: { snapshot: Snapshot };
  cvg: { experiments: DashboardExperiment[]; notExperiments: ExperimentPage['notExperiments'] };
  insights: { insights: Insight[] };
}

/** The arguments of each call for a window: the page and its test ask exactly these. */
export function analyticsCalls(window: PageWindow) {
  return {
    snapshot: { action: 'snapshot', window, sections: [...PAGE_SECTIONS] },
    cvg: { action: 'cvg_dashboard' },
    insights: { action: 'insights', window },
  } as const;
}

// Formats as query_analytics' own text does, so the page and the agent say the same figures.
const formatCount = (n: number) => n.toLocaleString('en-US');
const formatRate = (rate: number | null) => (rate === null ? 'n/a' : `${(rate * 100).toFixed(2)}%`);

/** A number on the page, tied to where it comes from in the tool's answers. */
function figure(path: string, value: number | null, format: 'count' | 'rate' | 'days' = 'count'): SafeHtml {
  // Days of runtime are fractional and grow with the clock: people read whole days.
  const shown =
    format === 'rate'
      ? formatRate(value)
      : format === 'days'
        ? formatCount(Math.floor(value ?? 0))
        : formatCount(value ?? 0);
  return html`<span data-metric="${path}" data-value="${value === null ? 'null' : String(value)}">${shown}</span>`;
}

const DECISION_WORDS: Record<VariantVerdict['decision'], { badge: string; words: (name: string) => string }> = {
  winner: { badge: 'ok', words: (name) => `Winner: “${name}” converts better than the control. Ship it.` },
  loser: { badge: 'error', words: (name) => `Loser: “${name}” converts worse than the control. Consider pausing it.` },
  keep_running: {
    badge: 'info',
    words: (name) => `Keep running: not enough evidence yet to call “${name}” better or worse.`,
  },
  inconclusive: {
    badge: 'muted',
    words: (name) => `Inconclusive: “${name}” ran its full time without a clear difference from the control.`,
  },
};

const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

const SEVERITY_BADGE: Record<Insight['severity'], string> = { high: 'error', medium: 'warn', low: 'info' };

const ANALYTICS_CSS = html`<style>
  .windows {
    display: flex;
    gap: 8px;
    flex-wrap: wrap;
    margin: 0 0 16px;
    padding: 0;
    list-style: none;
  }
  .windows a {
    display: inline-block;
    padding: 6px 14px;
    border: 1px solid #0b57d0;
    border-radius: 999px;
    text-decoration: none;
  }
  .windows a[aria-current='page'] {
    background: #0b57d0;
    color: #fff;
  }
  .kpis {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(150px, 1fr));
    gap: 12px;
    margin-bottom: 16px;
  }
  .kpi {
    background: #fff;
    border: 1px solid #d5d9e0;
    border-radius: 8px;
    padding: 12px 16px;
  }
  .kpi dt {
    font-size: 0.8rem;
    text-transform: uppercase;
    letter-spacing: 0.04em;
    color: #4a515c;
  }
  .kpi dd {
    margin: 4px 0 0;
    font-size: 1.6rem;
    font-weight: 700;
  }
  .kpi .muted {
    font-size: 0.8rem;
    font-weight: 400;
    display: block;
  }
  .charts {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(340px, 1fr));
    gap: 12px;
  }
  .charts figure {
    margin: 0;
    background: #fff;
    border: 1px solid #d5d9e0;
    border-radius: 8px;
    padding: 12px;
  }
  .charts figcaption {
    font-weight: 600;
    margin-bottom: 4px;
  }
  svg.chart {
    width: 100%;
    height: auto;
    display: block;
  }
  .verdict {
    margin: 8px 0;
  }
  .insights {
    list-style: none;
    padding: 0;
    margin: 0;
    display: grid;
    gap: 12px;
  }
  .insights .card {
    margin: 0;
  }
  .num {
    text-align: right;
    font-variant-numeric: tabular-nums;
  }
</style>`;

function metricCards(prefix: string, m: Metrics): SafeHtml {
  return html`<dl class="kpis">
    <div class="kpi">
      <dt>Impressions</dt>
      <dd>${figure(`${prefix}.impressions`, m.impressions)}<span class="muted">times a variant was shown</span></dd>
    </div>
    <div class="kpi">
      <dt>Reach</dt>
      <dd>${figure(`${prefix}.reach`, m.reach)}<span class="muted">distinct sessions that saw one</span></dd>
    </div>
    <div class="kpi">
      <dt>Clicks</dt>
      <dd>${figure(`${prefix}.clicks`, m.clicks)}</dd>
    </div>
    <div class="kpi">
      <dt>Click-through rate</dt>
      <dd>${figure(`${prefix}.clickThroughRate`, m.clickThroughRate, 'rate')}</dd>
    </div>
    <div class="kpi">
      <dt>Conversions</dt>
      <dd>${figure(`${prefix}.conversions`, m.conversions)}</dd>
    </div>
  </dl>`;
}

const DAILY_SERIES = [
  ['impressions', 'Impressions', '#0b57d0'],
  ['reach', 'Reach', '#0d652d'],
  ['clicks', 'Clicks', '#7a4f01'],
  ['conversions', 'Conversions', '#8c1d18'],
] as const;

function dailySection(days: NonNullable<Snapshot['timeseries']>): SafeHtml {
  return html`<h2>Day by day</h2>
    <div class="charts">
      ${DAILY_SERIES.map(
        ([key, label, colour]) =>
          html`<figure>
            <figcaption>${label}</figcaption>
            ${dailyBarChart({ id: `chart-${key}`, title: label, colour, points: days.map((day) => ({ day: day.day, value: day[key] })) })}
          </figure>`,
      )}
    </div>
    <details>
      <summary>The same days as a table</summary>
      ${stackedTable(
        ['Day', 'Impressions', 'Reach', 'Clicks', 'CTR', 'Conversions'],
        days.map((day, index) => [
          day.day,
          figure(`snapshot.timeseries.${index}.impressions`, day.impressions),
          figure(`snapshot.timeseries.${index}.reach`, day.reach),
          figure(`snapshot.timeseries.${index}.clicks`, day.clicks),
          figure(`snapshot.timeseries.${index}.clickThroughRate`, day.clickThroughRate, 'rate'),
          figure(`snapshot.timeseries.${index}.conversions`, day.conversions),
        ]),
      )}
    </details>`;
}

function campaignsSection(campaigns: NonNullable<Snapshot['campaigns']>, truncated: number): SafeHtml {
  return html`<h2>Campaigns</h2>
    ${
      campaigns.length
        ? stackedTable(
            ['Campaign', 'Impressions', 'Reach', 'Clicks', 'CTR', 'Conversions'],
            campaigns.map((row, index) => {
              const at = `snapshot.campaigns.${index}.metrics`;
              return [
                html`<strong>${row.name}</strong>
                  <span class="muted">${row.status}</span
                  >${row.metrics.smallSample ? html`<br /><span class="muted">Small sample: rates are anecdotal</span>` : ''}`,
                figure(`${at}.impressions`, row.metrics.impressions),
                figure(`${at}.reach`, row.metrics.reach),
                figure(`${at}.clicks`, row.metrics.clicks),
                figure(`${at}.clickThroughRate`, row.metrics.clickThroughRate, 'rate'),
                figure(`${at}.conversions`, row.metrics.conversions),
              ];
            }),
          )
        : html`<p class="card muted">No campaign had traffic in this window.</p>`
    }
    ${truncated ? html`<p class="muted">${truncated} more campaigns with less traffic are not listed.</p>` : ''}`;
}

function armRow(arm: ArmView, armPath: string, verdict: VariantVerdict | undefined, verdictPath: string) {
  return [
    html`${arm.isControl ? html`<span class="badge muted">Control</span> ` : ''}<strong>${arm.name}</strong>`,
    figure(`${armPath}.exposures`, arm.exposures),
    figure(`${armPath}.conversions`, arm.conversions),
    html`${figure(`${armPath}.rate`, arm.rate, 'rate')}<br /><span class="muted"
        >95% between ${figure(`${armPath}.interval.0`, arm.interval[0], 'rate')} and
        ${figure(`${armPath}.interval.1`, arm.interval[1], 'rate')}</span
      >`,
    verdict
      ? html`${figure(`${verdictPath}.chanceToBeatControl`, verdict.chanceToBeatControl, 'rate')}`
      : html`<span class="muted">—</span>`,
    verdict
      ? html`<span class="badge ${DECISION_WORDS[verdict.decision].badge}">${verdict.decision.replace('_', ' ')}</span>
          <p class="verdict">${DECISION_WORDS[verdict.decision].words(arm.name)}</p>
          <p class="muted">${verdict.reason}</p>`
      : html`<span class="muted">The baseline the variants are compared with</span>`,
  ];
}

function experimentsSection(cvg: AnalyticsAnswers['cvg']): SafeHtml {
  return html`<h2>A/B tests</h2>
    <p class="muted">
      Each test covers its whole runtime, whatever the window above. A variant is a winner or loser only once the method
      says so; until then it keeps running.
    </p>
    ${
      cvg.experiments.length
        ? cvg.experiments.map((experiment, e) => {
            const base = `cvg.experiments.${e}`;
            const arms = [experiment.control, ...experiment.variants];
            return html`<section class="card" aria-labelledby="experiment-${e}">
              <h3 id="experiment-${e}">${experiment.campaignName}</h3>
              <p class="muted">
                Running for ${figure(`${base}.runtime.days`, experiment.runtime.days, 'days')} days (at least
                ${experiment.runtime.minDays}, at most ${experiment.runtime.maxDays}).
                ${experiment.srm.mismatch ? html`<strong>The traffic split does not match the variants' weights: read no verdict until that is fixed.</strong>` : ''}
              </p>
              ${
                experiment.topPerformer
                  ? html`<p>
                      <strong>Top performer: “${experiment.topPerformer.name}”</strong>, ${experiment.topPerformer.why}.
                    </p>`
                  : ''
              }
              ${stackedTable(
                ['Variant', 'Sessions', 'Converted', 'Rate', 'Chance to beat control', 'Decision'],
                arms.map((arm, a) => {
                  const armPath = a === 0 ? `${base}.control` : `${base}.variants.${a - 1}`;
                  const v = experiment.comparisons.findIndex((verdict) => verdict.variantId === arm.variantId);
                  return armRow(
                    arm,
                    armPath,
                    v >= 0 ? experiment.comparisons[v] : undefined,
                    `${base}.comparisons.${v}`,
                  );
                }),
              )}
            </section>`;
          })
        : html`<p class="card muted">No A/B test yet: a campaign needs two or more active variants.</p>`
    }
    ${
      cvg.notExperiments.length
        ? html`<p class="muted">
            Not tests (one active variant):
            ${cvg.notExperiments.map((row, i) => html`${i ? ', ' : ''}${row.campaignName}`)}.
          </p>`
        : ''
    }`;
}

function insightsSection(insights: Insight[]): SafeHtml {
  return html`<h2>Insights</h2>
    ${
      insights.length
        ? html`<ul class="insights">
            ${insights.map(
              (insight) =>
                html`<li class="card">
                  <span class="badge ${SEVERITY_BADGE[insight.severity]}">${insight.severity}</span>
                  <strong>${insight.headline}</strong>
                  <p>${insight.detail}</p>
                  <p class="muted">Next step an agent could propose: ${insight.suggestedAction}</p>
                </li>`,
            )}
          </ul>`
        : html`<p class="card muted">Nothing notable in this window: no winner, stall or traffic problem.</p>`
    }`;
}

function conciergeSection(concierge: NonNullable<Snapshot['concierge']>): SafeHtml {
  return html`<h2>Concierge questions</h2>
    <div class="card">
      <p>
        Visitors asked ${figure('snapshot.concierge.questions', concierge.questions)} questions;
        ${figure('snapshot.concierge.unanswered', concierge.unanswered)} went unanswered (answer rate
        ${figure('snapshot.concierge.answerRate', concierge.answerRate, 'rate')}).
      </p>
      ${
        concierge.topUnanswered.length
          ? html`<h3>Unanswered, most asked first</h3>
              ${stackedTable(
                ['Question', 'Times asked', 'Last asked'],
                concierge.topUnanswered.map((question, index) => [
                  question.query,
                  figure(`snapshot.concierge.topUnanswered.${index}.count`, question.count),
                  `${question.lastAskedAt.slice(0, 16).replace('T', ' ')} UTC`,
                ]),
              )}
              <p class="muted">Add the answers to the concierge FAQ in the brand kit so visitors get them.</p>`
          : ''
      }
    </div>`;
}

function channelsSection(channels: NonNullable<Snapshot['channels']>): SafeHtml {
  if (!channels.networks.length) return html``;
  return html`<h2>Social channels</h2>
    <p class="muted">${channels.note}</p>
    ${stackedTable(
      ['Network', 'Posts', 'Engagement', 'Link visits', 'Conversions'],
      channels.networks.map((row, index) => {
        const at = `snapshot.channels.networks.${index}`;
        const known = CHANNEL_METRICS.filter((name) => row.metrics[name] !== null);
        return [
          row.name,
          figure(`${at}.posts`, row.posts),
          known.length
            ? known.map(
                (name, i) => html`${i ? ', ' : ''}${figure(`${at}.metrics.${name}`, row.metrics[name])} ${name}`,
              )
            : html`<span class="muted">none measured</span>`,
          figure(`${at}.clicks`, row.clicks),
          figure(`${at}.conversions`, row.conversions),
        ];
      }),
    )}`;
}

export function analyticsPage(
  chrome: Chrome,
  window: PageWindow,
  answers: AnalyticsAnswers,
  notices: Notice[] = [],
): string {
  const ws = chrome.current!;
  const { snapshot } = answers.snapshot;
  return shell(
    'Analytics',
    chrome,
    html`<h1>Analytics</h1>
      <nav aria-label="Window">
        <ul class="windows">
          ${PAGE_WINDOWS.map(
            (w) =>
              html`<li>
                <a href="/w/${ws.id}/analytics?window=${w}" ${w === window ? html`aria-current="page"` : ''}
                  >Last ${Number.parseInt(w, 10)} days</a
                >
              </li>`,
          )}
        </ul>
      </nav>
      <p class="muted">
        ${snapshot.window.from} to ${snapshot.window.to} (UTC days, today included).
        ${snapshot.freshness.dataThrough ? `Events received up to ${minute(snapshot.freshness.dataThrough)}.` : 'No events rolled up yet.'}
        Impressions count every time a variant was shown; Reach counts the distinct sessions that saw one. They are
        different measures and never added together.
      </p>
      ${snapshot.summary ? metricCards('snapshot.summary', snapshot.summary) : ''}
      ${snapshot.summary?.smallSample ? html`<p class="notice warn">Fewer than 100 sessions: treat the rates as anecdotal.</p>` : ''}
      ${snapshot.timeseries ? dailySection(snapshot.timeseries) : ''}
      ${snapshot.campaigns ? campaignsSection(snapshot.campaigns, snapshot.truncated?.campaigns ?? 0) : ''}
      ${experimentsSection(answers.cvg)} ${insightsSection(answers.insights.insights)}
      ${snapshot.concierge ? conciergeSection(snapshot.concierge) : ''}
      ${snapshot.channels ? channelsSection(snapshot.channels) : ''}`,
    notices,
    ANALYTICS_CSS,
  );
}

export function analyticsRoutes(router: Router, kit: DashboardKit): void {
  router.get('/w/:workspaceId/analytics', ...kit.workspacePage('workspace:read'), async (ctx: Context) => {
    const window = PAGE_WINDOWS.includes(ctx.query.window as PageWindow) ? (ctx.query.window as PageWindow) : '7d';
    const calls = analyticsCalls(window);
    // The A/B dashboard and the insights are built from the same experiments: computed once for both.
    const [snapshot, cvg, insights] = await sharingReads(() =>
      Promise.all([
        kit.tool<AnalyticsAnswers['snapshot']>(ctx, 'query_analytics', calls.snapshot),
        kit.tool<AnalyticsAnswers['cvg']>(ctx, 'query_analytics', calls.cvg),
        kit.tool<AnalyticsAnswers['insights']>(ctx, 'query_analytics', calls.insights),
      ]),
    );
    kit.sendHtml(ctx, analyticsPage(state(ctx).chrome, window, { snapshot, cvg, insights }));
  });
}
