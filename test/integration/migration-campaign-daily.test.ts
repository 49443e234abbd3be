/**
 * Migration20261128120000_campaign_daily_impressions: campaign days rolled up before it get their impressions
 * from the daily rows they already have, so a campaign list ranks old days as it ranks new ones.
 */
import { createOrm } from '../../src/db/orm.ts';
import { emptyDatabase } from '../support/empty-database.ts';

it('fills each campaign day with the sum of its variant × zone rows, and leaves rows without a campaign out', async () => {
  const orm = await createOrm({ url: await emptyDatabase('campaigndaymig') });
  try {
    await orm.migrator.up({ to: 'Migration20261128060000_window_build_campaign_slice' });
    const connection = orm.em.fork().getConnection();
    const rows: [string, string, string, string, string, number][] = [
      ['ws_a', '2026-11-01', 'cmp_1', 'var_1', 'zone_1', 10],
      ['ws_a', '2026-11-01', 'cmp_1', 'var_1', '', 5],
      ['ws_a', '2026-11-01', 'cmp_1', 'var_2', 'zone_1', 7],
      ['ws_a', '2026-11-02', 'cmp_1', 'var_1', 'zone_1', 1],
      ['ws_a', '2026-11-01', 'cmp_2', 'var_3', '', 0],
      ['ws_a', '2026-11-01', '', '', '', 99],
      ['ws_b', '2026-11-01', 'cmp_1', 'var_1', 'zone_1', 3],
    ];
    for (const row of rows) {
      await connection.execute(
        `insert into analytics_rollups_daily (workspace_id, day, campaign_id, variant_id, zone_id, impressions)
         values (?, ?::date, ?, ?, ?, ?)`,
        row,
      );
    }
    await orm.migrator.up();
    const days = await connection.execute<
      { workspace_id: string; day: string; campaign_id: string; impressions: string }[]
    >(`select workspace_id, day::text as day, campaign_id, impressions from analytics_campaign_daily order by 1, 2, 3`);
    expect(days.map((row) => [row.workspace_id, row.day, row.campaign_id, Number(row.impressions)])).toEqual([
      ['ws_a', '2026-11-01', 'cmp_1', 22],
      ['ws_a', '2026-11-01', 'cmp_2', 0],
      ['ws_a', '2026-11-02', 'cmp_1', 1],
      ['ws_b', '2026-11-01', 'cmp_1', 3],
    ]);
    await orm.migrator.down({ to: 'Migration20261128060000_window_build_campaign_slice' });
    const [left] = await connection.execute<{ table: string | null }[]>(
      `select to_regclass('analytics_campaign_daily')::text as table`,
    );
    expect(left!.table).toBeNull();
  } finally {
    await orm.close();
  }
});
