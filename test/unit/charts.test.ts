/** The server-drawn daily chart: scaled to its data, named and described for screen readers, escaped. */
import { dailyBarChart, describeDaily, niceCeiling } from '../../src/views/charts.ts';

const week = [3, 0, 12, 7, 0, 40, 9].map((value, index) => ({ day: `2026-11-${String(20 + index)}`, value }));

describe('niceCeiling', () => {
  it.each([
    [0, 1],
    [1, 1],
    [7, 10],
    [12, 20],
    [40, 50],
    [101, 200],
    [5000, 5000],
  ])('rounds %d up to %d', (max, expected) => {
    expect(niceCeiling(max)).toBe(expected);
  });
});

describe('dailyBarChart', () => {
  const svg = dailyBarChart({ id: 'impressions', title: 'Impressions', points: week, width: 400, height: 200 }).value;
  const bars = [
    ...svg.matchAll(
      /<rect\s+data-day="([^"]+)"\s+data-value="([^"]+)"[^>]*?y="([^"]+)"\s+width="[^"]+"\s+height="([^"]+)"/g,
    ),
  ];

  it('draws one bar per day with the day and value it stands for', () => {
    expect(bars.map((bar) => [bar[1], Number(bar[2])])).toEqual(week.map((point) => [point.day, point.value]));
  });

  it('scales bars to the axis top: the tallest day reaches 40/50 of the plot, an empty day has no height', () => {
    const heights = bars.map((bar) => Number(bar[4]));
    const plot = 200 - 12 - 22;
    expect(heights[5]).toBeCloseTo((40 / 50) * plot, 0);
    expect(heights[1]).toBe(0);
    expect(heights[2]! / heights[0]!).toBeCloseTo(4, 1);
    expect(svg).toMatch(/>\s*50\s*<\/text>/);
  });

  it('is an image named by its title and described by its desc', () => {
    expect(svg).toMatch(/role="img"/);
    expect(svg).toMatch(/aria-labelledby="impressions-title impressions-desc"/);
    expect(svg).toContain('<title id="impressions-title">Impressions per day</title>');
    expect(svg).toContain(
      '<desc id="impressions-desc">Impressions per day from 2026-11-20 to 2026-11-26: 71 in total, the most on 2026-11-25 (40).</desc>',
    );
  });

  it('escapes what it is given', () => {
    const hostile = dailyBarChart({ id: 'x"y', title: '<script>', points: [] }).value;
    expect(hostile).not.toContain('<script>');
    expect(hostile).toContain('&lt;script&gt;');
    expect(hostile).toContain('id="x&quot;y-title"');
  });
});

describe('describeDaily', () => {
  it('says so when a window has no days or nothing happened', () => {
    expect(describeDaily('Reach', [])).toBe('Reach per day: no days in this window.');
    expect(describeDaily('Reach', [{ day: '2026-11-20', value: 0 }])).toBe(
      'Reach per day from 2026-11-20 to 2026-11-20: none on any day.',
    );
  });
});
