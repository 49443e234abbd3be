// Temporary diagnosis script (not committed): per-section snapshot timings on a persistent database.
import { Session } from 'node:inspector/promises';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createOrm, migrateToLatest } from '../../src/db/orm.ts';
import { createAnalyticsQueryService } from '../../src/domain/analytics/analytics-query.service.ts';
import { createSiteEventRecorder } from '../../src/domain/analytics/event-recorder.ts';
import { runRollupPass } from '../../src/domain/analytics/rollups.ts';
import { createCampaignsService } from '../../src/domain/campaigns/campaigns.service.ts';
import { createSurfacesService } from '../../src/domain/surfaces/surfaces.service.ts';
import { createWorkspacesService } from '../../src/domain/workspaces/workspaces.service.ts';
import { planWorkspace, TrafficGenerator, type TrafficWorkspace, type WorkspacePlan } from '../support/analytics-traffic.ts';
import { summariseCpuProfile } from '../support/cpu-profile-summary.ts';

const EVENTS = Number(process.env.EVENTS ?? 2_000_000);
const DB = `profile_snapshot_${EVENTS}`;
const NOW = new Date('2026-11-22T12:00:00Z');
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await admin.connect();
const exists = (await admin.query('select 1 from pg_database where datname = $1', [DB])).rowCount;
if (!exists) await admin.query(`create database ${DB}`);
await admin.end();
const orm = await createOrm({ url: `postgres://postgres@127.0.0.1:5432/${DB}`, poolMax: 8 });
let bigId: string;
if (!exists) {
  await migrateToLatest(orm);
  await orm.em.getConnection().execute(`select analytics_ensure_partitions('2026-11-22'::date - 90, '2026-11-23')`);
  const surfacesPlan = [ { name: 'Home', path: '/home', zones: 3 }, { name: 'Shop', path: '/shop', zones: 2 } ];
  const plans = [planWorkspace({ label: 'Big brand', share: 1, campaigns: 20, days: 90, seed: 1, surfaces: surfacesPlan })];
  const created: TrafficWorkspace[] = [];
  for (const plan of plans) created.push(await createWorkspace(plan));
  const gen = TrafficGenerator.create(created, { events: EVENTS, days: 90, seed: 1, now: NOW });
  const recorder = createSiteEventRecorder(orm);
  for (;;) { const b = gen.nextBatch(1000); if (!b) break; await recorder.record(b); }
  await runRollupPass(orm, { lagMs: 0 });
  await orm.em.getConnection().execute('analyze');
  bigId = created[0]!.workspaceId;
  fs.writeFileSync(`/tmp/${DB}.id`, bigId);
} else bigId = fs.readFileSync(`/tmp/${DB}.id`, 'utf8');

await migrateToLatest(orm);
{ const s0 = performance.now(); const r = await runRollupPass(orm, { lagMs: 0, now: () => NOW }); console.log('pass', r, (performance.now() - s0).toFixed(0), 'ms'); }
const service = createAnalyticsQueryService({ now: () => NOW });
const scope = () => ({ workspaceId: bigId, em: orm.em.fork(), actor: 'bench' });
const time = async (label: string, fn: () => Promise<unknown>, n = 10) => {
  await fn();
  const xs: number[] = [];
  for (let i = 0; i < n; i++) { const s = performance.now(); await fn(); xs.push(performance.now() - s); }
  xs.sort((a, b) => a - b);
  console.log(label.padEnd(40), 'p50', xs[Math.floor(n / 2)]!.toFixed(1), 'max', xs[n - 1]!.toFixed(1));
};
const [r] = (await orm.em.getConnection().execute(`select count(*) as n, sum(length(reach_sketch)) as b from analytics_rollups_daily where day >= '2026-08-25'`)) as { n: string; b: string }[];
console.log('90d rows', r);
for (const w of ['28d', '90d']) {
  for (const s of ['summary', 'campaigns', 'variants', 'surfaces', 'timeseries', 'concierge']) {
    await time(`${w} ${s}`, () => service.snapshot(scope(), { window: w, sections: [s] }));
  }
  await time(`${w} all`, () => service.snapshot(scope(), { window: w, sections: ['summary', 'campaigns', 'variants', 'surfaces', 'timeseries', 'concierge'] }));
}
{
  const all = ['summary', 'campaigns', 'variants', 'surfaces', 'timeseries', 'concierge'];
  const fast = [];
  for (const w of ['7d', '28d', '90d']) for (const secs of [all, ['summary'], ['campaigns', 'variants', 'surfaces']]) fast.push(await service.snapshot(scope(), { window: w, sections: secs }));
  await orm.em.getConnection().execute('create temporary table if not exists x as select 1');
  const saved = await orm.em.getConnection().execute('select * from analytics_window_builds');
  await orm.em.getConnection().execute('delete from analytics_window_builds');
  for (const w of ['28d', '90d']) await time(`${w} all SLOW`, () => service.snapshot(scope(), { window: w, sections: all }), 3);
  let i = 0;
  for (const w of ['7d', '28d', '90d']) for (const secs of [all, ['summary'], ['campaigns', 'variants', 'surfaces']]) {
    const slow = await service.snapshot(scope(), { window: w, sections: secs });
    const a = JSON.stringify({ ...fast[i], freshness: null }), b = JSON.stringify({ ...slow, freshness: null });
    console.log('equal', w, secs.join(','), a === b, a.length);
    i++;
  }
  await orm.em.getConnection().execute('delete from analytics_window_reach');
  const t0 = performance.now(); console.log('rebuild', await (await import('../../src/domain/analytics/window-reach.ts')).refreshWindowBuilds(orm, { now: NOW }), (performance.now() - t0).toFixed(0), 'ms', saved.length);
}
if (process.env.PROFILE) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  for (let i = 0; i < 10; i++) await service.snapshot(scope(), { window: '90d', sections: ['summary', 'campaigns', 'variants', 'surfaces', 'timeseries', 'concierge'] });
  const { profile } = await session.post('Profiler.stop');
  fs.writeFileSync('/tmp/snap.cpuprofile', JSON.stringify(profile));
  console.log(JSON.stringify(summariseCpuProfile(profile as never), null, 1).slice(0, 4000));
}
await orm.close();

async function createWorkspace(plan: WorkspacePlan): Promise<TrafficWorkspace> {
  const workspaces = createWorkspacesService();
  const user = await workspaces.createUser(orm.em.fork(), { email: `p-${Date.now()}@bench.example`, name: plan.label });
  const workspace = await workspaces.createWorkspace(orm.em.fork(), { name: plan.label, ownerUserId: user.id });
  const scope = { workspaceId: workspace.id, em: orm.em.fork(), actor: 'bench' };
  const campaigns = createCampaignsService({ republish: { requestRepublish: async () => undefined } });
  const surfaces = createSurfacesService({ siteUrl: async () => 'http://bench.invalid' });
  const zones: TrafficWorkspace['zones'] = [];
  for (const sp of plan.surfaces) {
    const surface = await surfaces.createSurface(scope, { name: sp.name, kind: 'brand_page', path: sp.path });
    for (let z = 0; z < sp.zones; z++) {
      const zone = await surfaces.createZone(scope, { surfaceId: surface.id, name: `${sp.name} ${z}`, key: `slot-${z + 1}`, kind: 'card' });
      zones.push({ zoneId: zone.id, surfaceId: surface.id });
    }
  }
  const traffic: TrafficWorkspace = { plan, workspaceId: workspace.id, campaignIds: [], variantIds: [], zones };
  for (const cp of plan.campaigns) {
    const campaign = await campaigns.create(scope, { name: cp.name, objective: 'Sell more' });
    const ids: string[] = [];
    for (const [v, vp] of cp.variants.entries()) {
      const variant = await campaigns.createVariant(scope, campaign.id, { name: vp.name, headline: `h ${v}`, body: 'b', callToAction: 'Shop', weight: vp.weight, isControl: v === 0 });
      ids.push(variant.id);
    }
    await campaigns.publish(scope, campaign.id);
    traffic.campaignIds.push(campaign.id);
    traffic.variantIds.push(ids);
  }
  return traffic;
}
