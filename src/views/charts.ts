/**
 * Charts drawn on the server as inline SVG: no script, no external asset, nothing the dashboard's CSP would
 * have to allow. A pure function of its data, so it is unit-tested like any other view.
 *
 * Accessible by construction: the SVG is an image (`role="img"`) named by its own `<title>` and described by
 * its `<desc>` (what it shows, the total and the busiest day), and every page that draws one also prints the
 * same numbers as a table, so nobody depends on reading bars.
 */
import { html, type SafeHtml } from './html.ts';

export interface DailyPoint {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  value: number;
}

export interface DailyChartOptions {
  /** Unique on the page: the ids of the title and description derive from it. */
  id: string;
  /** What is counted, e.g. "Impressions". */
  title: string;
  points: readonly DailyPoint[];
  /** The bar colour (a CSS colour); the default is the dashboard's blue. */
  colour?: string;
  width?: number;
  height?: number;
}

const PAD = { top: 12, right: 8, bottom: 22, left: 44 };

const formatCount = (value: number) => value.toLocaleString('en-US');

/** The top of the value axis: the maximum rounded up to a "nice" 1, 2 or 5 × 10ⁿ (at least 1). */
export function niceCeiling(max: number): number {
  if (max <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/** A sentence saying what the chart shows: the description of the SVG, read by screen readers. */
export function describeDaily(title: string, points: readonly DailyPoint[]): string {
  if (!points.length) return `${title} per day: no days in this window.`;
  const total = points.reduce((sum, point) => sum + point.value, 0);
  const peak = points.reduce((best, point) => (point.value > best.value ? point : best), points[0]!);
  const range = `${points[0]!.day} to ${points[points.length - 1]!.day}`;
  return total === 0
    ? `${title} per day from ${range}: none on any day.`
    : `${title} per day from ${range}: ${formatCount(total)} in total, the most on ${peak.day} (${formatCount(peak.value)}).`;
}

/** Daily bars, one per day of the window, with a zero line, the axis top and the first and last day labelled. */
export function dailyBarChart(options: DailyChartOptions): SafeHtml {
  // Drawn at about the size it is shown, so its labels stay readable (the SVG keeps its proportions).
  const width = options.width ?? 360;
  const height = options.height ?? 160;
  const { points } = options;
  const top = niceCeiling(Math.max(0, ...points.map((point) => point.value)));
  const plotWidth = width - PAD.left - PAD.right;
  const plotHeight = height - PAD.top - PAD.bottom;
  const slot = points.length ? plotWidth / points.length : plotWidth;
  const barWidth = Math.max(1, slot * 0.75);
  const y = (value: number) => PAD.top + plotHeight - (value / top) * plotHeight;
  const round = (value: number) => Math.round(value * 10) / 10;
  const titleId = `${options.id}-title`;
  const descId = `${options.id}-desc`;
  const colour = options.colour ?? '#0b57d0';
  return html`<svg
    class="chart"
    xmlns="http://www.w3.org/2000/svg"
    viewBox="0 0 ${width} ${height}"
    role="img"
    aria-labelledby="${titleId} ${descId}"
  >
    <title id="${titleId}">${options.title} per day</title>
    <desc id="${descId}">${describeDaily(options.title, points)}</desc>
    <line x1="${PAD.left}" y1="${y(top)}" x2="${width - PAD.right}" y2="${y(top)}" stroke="#e3e6ea" />
    <line x1="${PAD.left}" y1="${y(0)}" x2="${width - PAD.right}" y2="${y(0)}" stroke="#8a919c" />
    <text x="${PAD.left - 6}" y="${y(top) + 4}" text-anchor="end" font-size="11" fill="#4a515c">
      ${formatCount(top)}
    </text>
    <text x="${PAD.left - 6}" y="${y(0) + 4}" text-anchor="end" font-size="11" fill="#4a515c">0</text>
    <g fill="${colour}">
      ${points.map((point, index) => {
        const barTop = y(point.value);
        const x = round(PAD.left + index * slot + (slot - barWidth) / 2);
        // One line per bar, no layout whitespace: a 90-day page draws 360 bars, and their indentation was a third
        // of its bytes.
        // prettier-ignore
        return html`<rect data-day="${point.day}" data-value="${point.value}" x="${x}" y="${round(barTop)}" width="${round(barWidth)}" height="${round(y(0) - barTop)}"><title>${point.day}: ${formatCount(point.value)}</title></rect>`;
      })}
    </g>
    ${
      points.length
        ? html`<text x="${PAD.left}" y="${height - 6}" font-size="11" fill="#4a515c">${points[0]!.day}</text>
            <text x="${width - PAD.right}" y="${height - 6}" text-anchor="end" font-size="11" fill="#4a515c"
              >${points[points.length - 1]!.day}</text
            >`
        : ''
    }
  </svg>`;
}
