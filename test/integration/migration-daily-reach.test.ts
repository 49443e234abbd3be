/**
 * Migration20261128013000_daily_reach_estimate: workspace days rolled up before it get their Reach number
 * from the sketch they already hold, so the daily chart (which reads the number only) shows the same Reach
 * for old days as for new ones.
 */
import { createOrm } from '../../src/db/orm.ts';
import { ReachSketch } from '../../src/domain/analytics/reach-sketch.ts';
import { emptyDatabase } from '../support/empty-database.ts';

it('estimates the Reach of every workspace day rolled up before it, and leaves days without sessions at 0', async () => {
  const orm = await createOrm({ url: await emptyDatabase('reachmig') });
  try {
    await orm.migrator.up({ to: 'Migration20261127230000_window_build_counters' });
    const sketches = [37, 1_200, 25_000].map((sessions, day) => {
      const sketch = new ReachSketch();
      for (let i = 0; i < sessions; i += 1) sketch.add(`session-${day}-${i}`);
      return sketch;
    });
    const connection = orm.em.fork().getConnection();
    // More days than one backfill batch (500), so the batching is exercised: 600 days of one workspace.
    for (let day = 0; day < 600; day += 1) {
      const sketch = day < sketches.length ? sketches[day]!.toBytes() : day % 2 ? new ReachSketch().toBytes() : null;
      await connection.execute(
        `insert into analytics_reach_daily (workspace_id, day, impressions, reach_sketch)
         values ('ws_old', date '2024-01-01' + ?::int, 100000, ?)`,
        [day, sketch],
      );
    }
    await orm.migrator.up();
    const rows = await connection.execute<{ day: string; reach: string; reach_sketch: Buffer | null }[]>(
      `select day::text as day, reach, reach_sketch from analytics_reach_daily order by day`,
    );
    expect(rows).toHaveLength(600);
    expect(rows.slice(0, 3).map((row) => Number(row.reach))).toEqual(sketches.map((sketch) => sketch.estimate()));
    expect(Number(rows[1]!.reach)).toBeGreaterThan(1_150);
    for (const row of rows) expect(Number(row.reach)).toBe(ReachSketch.fromBytes(row.reach_sketch).estimate());
    expect(Number(rows[599]!.reach)).toBe(0);
  } finally {
    await orm.close();
  }
});
