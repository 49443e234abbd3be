/**
 * The workspace the console benchmark (bench/console.ts) reads: one large brand as a busy marketing team would
 * have it after a quarter, and two small shops beside it in the same database.
 *
 * - People: an owner (who signs in), an admin, editors and viewers; API keys.
 * - Library: products, four brand-page surfaces with zones.
 * - Campaigns (`campaigns`, 1,000 by default) through the real campaigns service: 30% published (2–4
 *   weighted variants each, deployed to two zones), then ready, draft, archived (published first, so their
 *   deployments ended) and a few generating; creation and update times spread over the 90 days.
 * - Jobs (generations, renders, films, product imports) with the credit ledger entries they cause (reserve,
 *   captures per step, release of the rest) and monthly grants, and audit lines as the MCP tools and the
 *   dashboard write them. These are inserted as rows in batches (each through its entity): they stand for
 *   history, and starting thousands of Temporal workflows would measure Temporal, not the console.
 * - Analytics: `events` events over `days` days through the real recorder (the path bench/analytics.ts uses)
 *   on the published campaigns, then the rollups (`runRollupPass`, which also builds the long windows).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { createSiteEventRecorder } from '../../src/domain/analytics/event-recorder.ts';
import { runRollupPass } from '../../src/domain/analytics/rollups.ts';
import { AuditEvent } from '../../src/domain/audit/audit-event.entity.ts';
import { createCampaignsService } from '../../src/domain/campaigns/campaigns.service.ts';
import {
  CreditLedgerEntry,
  type CreditAccount,
  type CreditEntryKind,
} from '../../src/domain/credits/credit-ledger-entry.entity.ts';
import { Job } from '../../src/domain/jobs/job.entity.ts';
import type { JobStatus } from '../../src/domain/jobs/job-status.ts';
import { newTaskId } from '../../src/domain/jobs/task-ids.ts';
import { workflowIdFor } from '../../src/domain/jobs/workflow-ids.ts';
import type { ProductsService } from '../../src/domain/products/products.service.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import { acrossWorkspaces, actors, workspaceScope, type WorkspaceScope } from '../../src/domain/shared/scope.ts';
import type { SurfacesService } from '../../src/domain/surfaces/surfaces.service.ts';
import type { WorkspacesService } from '../../src/domain/workspaces/workspaces.service.ts';
import type { SiteEvent } from '../../src/domain/analytics/site-events.ts';
import { planWorkspace, sfc32, TrafficGenerator, type TrafficWorkspace } from './analytics-traffic.ts';

export interface ConsoleSeedOptions {
  campaigns: number;
  events: number;
  days: number;
  seed: number;
  now: Date;
  /** Called with a line of progress now and then. */
  progress(line: string): void;
}

export interface ConsoleSeedDeps {
  orm: MikroORM;
  workspaces: WorkspacesService;
  products: ProductsService;
  surfaces: SurfacesService;
}

export interface ConsoleSeed {
  workspaceId: string;
  workspaceName: string;
  owner: { email: string; password: string };
  /** A published campaign with variants, deployments and traffic: the detail page's subject. */
  detailCampaign: { id: string; name: string };
  /** A word that matches some campaign names (the list's search). */
  searchTerm: string;
  /** An audit action the big workspace has many lines of (the audit filter). */
  auditAction: string;
  sizes: Record<string, number | string>;
}

const DAY_MS = 86_400_000;
const STATEMENT_ROWS = 1000;
const WRITERS = 3;
const SURFACES = [
  { name: 'Home', path: '/home', zones: 4 },
  { name: 'Shop', path: '/shop', zones: 4 },
  { name: 'Journal', path: '/journal', zones: 2 },
  { name: 'Summer sale', path: '/summer-sale', zones: 2 },
];
const THEMES = ['Linen', 'Merino', 'Rain shell', 'Trail', 'City', 'Weekend', 'Holiday', 'Studio', 'Harbour', 'Alpine'];
const SEASONS = ['spring', 'summer', 'autumn', 'winter'];
/** Share of the big brand's campaigns in each status (the rest are generating). */
const STATUS_SHARES = { published: 0.3, ready: 0.25, draft: 0.25, archived: 0.19 };

/** Republishing is a Temporal workflow and nothing serves the brand site here. */
const noRepublish = { requestRepublish: async () => undefined };

async function createPeople(deps: ConsoleSeedDeps, label: string, stamp: string) {
  const em = acrossWorkspaces(deps.orm.em);
  const slug = label.toLowerCase().replace(/\W+/g, '-');
  const password = `bench-${stamp}-password`;
  const ownerEmail = `owner-${slug}-${stamp}@bench.example`;
  const owner = await deps.workspaces.createUser(em, { email: ownerEmail, name: `${label} owner`, password });
  const workspace = await deps.workspaces.createWorkspace(em, { name: label, ownerUserId: owner.id });
  const members = [{ id: owner.id }];
  for (const [role, count] of [
    ['admin', 1],
    ['editor', 4],
    ['viewer', 3],
  ] as const) {
    for (let i = 1; i <= count; i++) {
      const email = `${role}${i}-${slug}-${stamp}@bench.example`;
      const user = await deps.workspaces.createUser(em, {
        email,
        name: `${role[0]!.toUpperCase()}${role.slice(1)} ${i}`,
      });
      await deps.workspaces.setMember(em, workspace.id, { email, role });
      members.push({ id: user.id });
    }
  }
  const keys: string[] = [];
  for (const [name, role] of [
    ['Claude desktop', 'editor'],
    ['Ops agent', 'admin'],
    ['Reporting', 'viewer'],
    ['Old integration', 'editor'],
  ] as const) {
    keys.push((await deps.workspaces.createApiKey(em, workspace.id, { name, role, createdByUserId: owner.id })).key.id);
  }
  return { workspace, owner: { email: ownerEmail, password }, members, keys };
}

async function createZones(deps: ConsoleSeedDeps, scope: WorkspaceScope) {
  const zones: TrafficWorkspace['zones'] = [];
  for (const plan of SURFACES) {
    const surface = await deps.surfaces.createSurface(scope, { name: plan.name, kind: 'brand_page', path: plan.path });
    for (let z = 0; z < plan.zones; z++) {
      const zone = await deps.surfaces.createZone(scope, {
        surfaceId: surface.id,
        name: `${plan.name} slot ${z + 1}`,
        key: `slot-${z + 1}`,
        kind: 'card',
      });
      zones.push({ zoneId: zone.id, surfaceId: surface.id });
    }
  }
  return zones;
}

/**
 * A workspace with `campaignCount` campaigns. The first `traffic.plan.campaigns.length` are published with the
 * plan's variants and deployed to the plan's zones (they get the traffic); the rest spread over the other
 * statuses.
 */
async function createCampaigns(
  deps: ConsoleSeedDeps,
  workspaceId: string,
  campaignCount: number,
  traffic: TrafficWorkspace,
  progress: (line: string) => void,
): Promise<{ id: string; name: string; status: string }[]> {
  const campaigns = createCampaignsService({ republish: noRepublish, orm: deps.orm });
  const random = sfc32(traffic.plan.campaigns.length * 7 + campaignCount);
  const productIds: string[] = [];
  const productScope = workspaceScope(deps.orm.em, workspaceId, actors.operator);
  for (let i = 0; i < Math.max(5, Math.round(campaignCount / 5)); i++) {
    const product = await deps.products.create(productScope, {
      title: `${THEMES[i % THEMES.length]} piece no. ${i + 1}`,
      description: 'Made to last, repaired for free. Ships in recycled packaging.',
      price: 25 + (i % 40) * 5,
      currency: 'EUR',
    });
    productIds.push(product.id);
  }
  const published = traffic.plan.campaigns.length;
  const rest = campaignCount - published;
  const boundaries = {
    ready: published + Math.round(rest * (STATUS_SHARES.ready / (1 - STATUS_SHARES.published))),
    draft: 0,
    archived: 0,
  };
  boundaries.draft = boundaries.ready + Math.round(rest * (STATUS_SHARES.draft / (1 - STATUS_SHARES.published)));
  boundaries.archived = boundaries.draft + Math.round(rest * (STATUS_SHARES.archived / (1 - STATUS_SHARES.published)));
  const created: { id: string; name: string; status: string }[] = [];
  for (let c = 0; c < campaignCount; c++) {
    // A scope (and so an EntityManager) per campaign, as per request: the identity map stays small.
    const scope = workspaceScope(deps.orm.em, workspaceId, actors.operator);
    const plan = traffic.plan.campaigns[c];
    const status =
      c < published
        ? 'published'
        : c < boundaries.ready
          ? 'ready'
          : c < boundaries.draft
            ? 'draft'
            : c < boundaries.archived
              ? 'archived'
              : 'generating';
    const theme = THEMES[c % THEMES.length]!;
    const name = plan?.name ?? `${theme} ${SEASONS[c % 4]} ${2026 - (c % 3)} no. ${c + 1}`;
    const campaign = await campaigns.create(
      scope,
      {
        name,
        objective: `Sell more ${theme.toLowerCase()} this ${SEASONS[c % 4]}`,
        productIds: [productIds[c % productIds.length]!],
      },
      { generating: status === 'generating' },
    );
    created.push({ id: campaign.id, name, status });
    if (status === 'generating') continue;
    // Published ones take the traffic plan's weighted variants; a draft may have none yet.
    const variants: { name: string; weight: number }[] = plan
      ? plan.variants
      : status === 'draft' && random() < 0.4
        ? []
        : [
            { name: 'Control', weight: 50 },
            { name: 'Challenger A', weight: 50 },
          ];
    const variantIds: string[] = [];
    for (const [v, variant] of variants.entries()) {
      const view = await campaigns.createVariant(scope, campaign.id, {
        name: variant.name,
        headline: `${name}: ${v === 0 ? 'made to last' : `take ${v + 1}`}`,
        body: 'Cut from fabric that breathes and lasts, repaired for free for as long as you wear it.',
        callToAction: 'Shop now',
        weight: variant.weight,
        isControl: v === 0,
      });
      variantIds.push(view.id);
    }
    if (status === 'published' || status === 'archived') {
      await campaigns.publish(scope, campaign.id);
      const zoneIndexes = plan?.zones ?? [c % traffic.zones.length];
      for (const z of zoneIndexes) {
        await campaigns.deploy(scope, { campaignId: campaign.id, zoneId: traffic.zones[z]!.zoneId });
      }
    }
    if (status === 'archived') await campaigns.update(scope, campaign.id, { status: 'archived' });
    if (plan) {
      traffic.campaignIds.push(campaign.id);
      traffic.variantIds.push(variantIds);
    }
    if ((c + 1) % 200 === 0) progress(`  … ${c + 1} campaigns`);
  }
  return created;
}

/** Creation and last-change times spread over the range (the services stamp everything "now"). */
async function spreadTimes(orm: MikroORM, workspaceId: string, days: number, now: Date) {
  const connection = orm.em.getConnection();
  await connection.execute(
    `update campaigns set created_at = ?::timestamptz - (random() * ? * interval '1 day')
     where workspace_id = ?`,
    [now.toISOString(), days, workspaceId],
  );
  await connection.execute(
    `update campaigns set updated_at = created_at + random() * (?::timestamptz - created_at),
       published_at = case when published_at is null then null else created_at + interval '1 hour' end
     where workspace_id = ?`,
    [now.toISOString(), workspaceId],
  );
  await connection.execute(
    `update variants v set created_at = c.created_at, updated_at = c.updated_at from campaigns c
     where v.campaign_id = c.id and c.workspace_id = ?`,
    [workspaceId],
  );
}

interface History {
  jobs: number;
  ledger: number;
  audit: number;
}

/**
 * Jobs with their credit postings and audit lines, over the range: per campaign that got past draft one to
 * three generations (a few failed or cancelled), renders for most published campaigns, films for some (a few
 * waiting at their approval gate), product imports; a running generation per generating campaign. Monthly
 * grants keep the balance positive. Plus the audit lines of everyday work: sign-ins, campaign edits,
 * publishes, deploys, denied attempts by viewers.
 */
async function insertHistory(
  orm: MikroORM,
  workspaceId: string,
  campaigns: { id: string; status: string }[],
  people: { members: { id: string }[]; keys: string[] },
  days: number,
  now: Date,
  seed: number,
): Promise<History> {
  const random = sfc32(seed);
  const start = now.getTime() - days * DAY_MS;
  const at = (from = start) => new Date(from + random() * (now.getTime() - 60_000 - from));
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const actorsOf = [...people.members.map((m) => actors.user(m.id)), ...people.keys.map((k) => actors.apiKey(k))];
  const jobs: Record<string, unknown>[] = [];
  const ledger: Record<string, unknown>[] = [];
  const audit: Record<string, unknown>[] = [];
  const post = (
    kind: CreditEntryKind,
    from: CreditAccount,
    to: CreditAccount,
    amount: number,
    when: Date,
    extra: { reference?: string; description?: string; actor: string },
  ) =>
    ledger.push({
      id: newId('creditEntry'),
      workspace: workspaceId,
      kind,
      fromAccount: from,
      toAccount: to,
      amount,
      idempotencyKey: `bench:${newId('creditEntry')}`,
      reference: extra.reference ?? null,
      description: extra.description ?? null,
      actor: extra.actor,
      createdAt: when,
    });
  const line = (
    action: string,
    when: Date,
    fields: Partial<{
      actor: string;
      targetType: string;
      targetId: string;
      outcome: string;
      details: Record<string, unknown>;
    }> = {},
  ) =>
    audit.push({
      id: newId('auditEvent'),
      workspaceId,
      actor: fields.actor ?? pick(actorsOf),
      action,
      targetType: fields.targetType ?? null,
      targetId: fields.targetId ?? null,
      outcome: fields.outcome ?? 'success',
      details: fields.details ?? {},
      ip: '203.0.113.7',
      requestId: null,
      createdAt: when,
    });
  for (let month = 0; month <= Math.ceil(days / 30); month++) {
    post('grant', 'external', 'available', 100_000, new Date(start + month * 30 * DAY_MS), {
      description: 'Monthly plan credits',
      actor: 'operator',
    });
  }
  const job = (
    kind: string,
    subjectId: string | null,
    status: JobStatus,
    when: Date,
    credits: number,
    steps: number,
  ) => {
    const id = newId('job');
    const actor = pick(actorsOf);
    const finished = ['succeeded', 'failed', 'cancelled'].includes(status);
    jobs.push({
      id,
      workspace: workspaceId,
      kind,
      status,
      workflowId: workflowIdFor(kind, workspaceId, subjectId ?? id),
      runId: `run-${id}`,
      taskId: newTaskId(),
      subjectId,
      input: { credits },
      progress: { fraction: finished ? 1 : 0.4, step: finished ? 'done' : 'copy' },
      result: status === 'succeeded' ? { variants: 3 } : null,
      error: status === 'failed' ? { code: 'provider_error', message: 'The image model timed out' } : null,
      createdBy: actor,
      createdAt: when,
      updatedAt: new Date(when.getTime() + 90_000),
      startedAt: when,
      finishedAt: finished ? new Date(when.getTime() + 90_000) : null,
      cancelRequestedAt: status === 'cancelled' ? new Date(when.getTime() + 30_000) : null,
    });
    post('reserve', 'available', 'held', credits, when, { reference: id, description: `${kind} reserved`, actor });
    const captured =
      status === 'succeeded' ? credits : status === 'failed' || status === 'cancelled' ? Math.floor(credits / 3) : 0;
    const perStep = Math.floor(captured / steps);
    for (let s = 0; s < steps && perStep > 0; s++) {
      post('capture', 'held', 'spent', perStep, new Date(when.getTime() + (s + 1) * 20_000), {
        reference: id,
        description: `${kind} step ${s + 1}`,
        actor: actors.workflow(id),
      });
    }
    const left = credits - perStep * (perStep > 0 ? steps : 0);
    if (finished && left > 0) {
      post('release', 'held', 'available', left, new Date(when.getTime() + 90_000), {
        reference: id,
        actor: actors.workflow(id),
      });
    }
    line(
      `mcp.${kind === 'campaign_generation' ? 'generate_campaign' : kind === 'render' ? 'render_video' : kind === 'film' ? 'video_commission' : 'manage_products'}.start`,
      when,
      {
        actor,
        targetType: 'job',
        targetId: id,
      },
    );
  };
  for (const campaign of campaigns) {
    if (campaign.status === 'generating') {
      job('campaign_generation', campaign.id, 'running', at(now.getTime() - 600_000), 120, 3);
      continue;
    }
    if (campaign.status === 'draft') continue;
    const generations = 1 + Math.floor(random() * 3);
    for (let g = 0; g < generations; g++) {
      const roll = random();
      job(
        'campaign_generation',
        campaign.id,
        roll < 0.05 ? 'failed' : roll < 0.08 ? 'cancelled' : 'succeeded',
        at(),
        120,
        3,
      );
    }
    if (campaign.status === 'published' && random() < 0.7) job('render', campaign.id, 'succeeded', at(), 40, 1);
    if (campaign.status === 'published' && random() < 0.1) {
      job('film', campaign.id, random() < 0.1 ? 'input_required' : 'succeeded', at(), 600, 4);
    }
  }
  for (let i = 0; i < 20; i++) job('product_import', null, 'succeeded', at(), 10, 1);
  // Everyday audit lines beside the jobs'.
  for (const campaign of campaigns) {
    line('mcp.manage_campaigns.create', at(), { targetType: 'campaign', targetId: campaign.id });
    for (let e = Math.floor(random() * 6); e > 0; e--) {
      line('mcp.manage_campaigns.update_variant', at(), { targetType: 'campaign', targetId: campaign.id });
    }
    if (campaign.status === 'published' || campaign.status === 'archived') {
      line('mcp.manage_campaigns.publish', at(), { targetType: 'campaign', targetId: campaign.id });
      line('mcp.manage_surfaces.deploy', at(), { targetType: 'campaign', targetId: campaign.id });
    }
    if (random() < 0.05) {
      line('mcp.manage_campaigns.publish', at(), {
        actor: actors.user(people.members.at(-1)!.id),
        targetType: 'campaign',
        targetId: campaign.id,
        outcome: 'denied',
      });
    }
  }
  for (let d = 0; d < days; d++) {
    for (let s = 0; s < 6; s++) {
      line('session.sign_in', at(start + d * DAY_MS), {
        actor: actors.user(pick(people.members).id),
        details: { via: 'dashboard' },
      });
    }
  }
  const insert = async (
    entity: typeof Job | typeof CreditLedgerEntry | typeof AuditEvent,
    rows: Record<string, unknown>[],
  ) => {
    for (let i = 0; i < rows.length; i += STATEMENT_ROWS) {
      await acrossWorkspaces(orm.em).insertMany(entity as never, rows.slice(i, i + STATEMENT_ROWS) as never[]);
    }
  };
  const byTime = (a: Record<string, unknown>, b: Record<string, unknown>) =>
    (a.createdAt as Date).getTime() - (b.createdAt as Date).getTime();
  await insert(Job, jobs);
  await insert(CreditLedgerEntry, ledger.sort(byTime));
  await insert(AuditEvent, audit.sort(byTime));
  return { jobs: jobs.length, ledger: ledger.length, audit: audit.length };
}

/** Writes every event through the recorder with a few concurrent writers. */
async function recordTraffic(
  orm: MikroORM,
  generator: TrafficGenerator,
  events: number,
  progress: (line: string) => void,
): Promise<void> {
  const recorder = createSiteEventRecorder(orm);
  let written = 0;
  let reported = 0;
  let done = false;
  const next = (): SiteEvent[] | null => {
    if (done) return null;
    const batch = generator.nextBatch(STATEMENT_ROWS);
    if (!batch) done = true;
    return batch;
  };
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      for (let batch = next(); batch; batch = next()) {
        await recorder.record(batch);
        written += batch.length;
        if (written - reported >= events / 10) {
          reported = written;
          progress(`  … ${written.toLocaleString('en-US')} events recorded`);
        }
      }
    }),
  );
}

export async function seedConsole(deps: ConsoleSeedDeps, options: ConsoleSeedOptions): Promise<ConsoleSeed> {
  const { orm } = deps;
  const { progress, now, days } = options;
  const stamp = now.getTime().toString(36);
  const connection = orm.em.getConnection();
  const today = now.toISOString().slice(0, 10);
  await connection.execute(`select analytics_ensure_partitions(?::date - ?::int, ?::date + 1)`, [today, days, today]);

  const published = Math.round(options.campaigns * STATUS_SHARES.published);
  const workspacesPlanned = [
    { label: 'Northwind Outfitters', share: 0.98, campaigns: options.campaigns, trafficCampaigns: published },
    { label: 'Small shop one', share: 0.01, campaigns: 8, trafficCampaigns: 3 },
    { label: 'Small shop two', share: 0.01, campaigns: 8, trafficCampaigns: 3 },
  ];
  const traffic: TrafficWorkspace[] = [];
  const created: { id: string; name: string; status: string }[][] = [];
  const people: Awaited<ReturnType<typeof createPeople>>[] = [];
  for (const [w, planned] of workspacesPlanned.entries()) {
    progress(`${planned.label}: ${planned.campaigns} campaigns through the campaigns service`);
    const who = await createPeople(deps, planned.label, stamp);
    people.push(who);
    const scope = workspaceScope(orm.em, who.workspace.id, actors.operator);
    const zones = await createZones(deps, scope);
    const plan = planWorkspace({
      label: planned.label,
      share: planned.share,
      campaigns: planned.trafficCampaigns,
      days,
      seed: options.seed + w,
      surfaces: SURFACES,
    });
    const workspaceTraffic: TrafficWorkspace = {
      plan,
      workspaceId: who.workspace.id,
      campaignIds: [],
      variantIds: [],
      zones,
    };
    created.push(await createCampaigns(deps, who.workspace.id, planned.campaigns, workspaceTraffic, progress));
    traffic.push(workspaceTraffic);
    await spreadTimes(orm, who.workspace.id, days, now);
  }
  const big = traffic[0]!;
  progress('Jobs, credit ledger and audit lines');
  const history = await insertHistory(orm, big.workspaceId, created[0]!, people[0]!, days, now, options.seed);
  for (const [w, small] of traffic.slice(1).entries()) {
    await insertHistory(orm, small.workspaceId, created[w + 1]!, people[w + 1]!, days, now, options.seed + w + 1);
  }

  progress(`${options.events.toLocaleString('en-US')} events over ${days} days through the recorder`);
  const generator = TrafficGenerator.create(traffic, { events: options.events, days, seed: options.seed, now });
  await recordTraffic(orm, generator, options.events, progress);
  await connection.execute('analyze analytics_events');
  progress('Rollups');
  let rolledUp = 0;
  const rolled = await runRollupPass(orm, {
    lagMs: 0,
    now: () => now,
    onBatchCommitted: (_batch, totals) => {
      if (totals.events - rolledUp < options.events / 10) return;
      rolledUp = totals.events;
      progress(`  … ${totals.events.toLocaleString('en-US')} events rolled up`);
    },
  });
  await connection.execute('analyze');

  const count = async (sql: string) =>
    Number(((await connection.execute(sql, [big.workspaceId])) as { n: string }[])[0]!.n);
  const sizes = {
    campaigns: await count(`select count(*) as n from campaigns where workspace_id = ?`),
    'campaigns published': await count(
      `select count(*) as n from campaigns where workspace_id = ? and status = 'published'`,
    ),
    variants: await count(
      `select count(*) as n from variants v join campaigns c on c.id = v.campaign_id where c.workspace_id = ?`,
    ),
    'deployments (active)': await count(
      `select count(*) as n from deployments where workspace_id = ? and status = 'active'`,
    ),
    'deployments (ended)': await count(
      `select count(*) as n from deployments where workspace_id = ? and status = 'ended'`,
    ),
    products: await count(`select count(*) as n from products where workspace_id = ?`),
    'surfaces / zones': `${SURFACES.length} / ${SURFACES.reduce((sum, s) => sum + s.zones, 0)}`,
    members: people[0]!.members.length,
    jobs: history.jobs,
    'credit ledger entries': history.ledger,
    'audit lines': history.audit,
    'events (all workspaces)': generator.stats.events,
    'events of this workspace': await count(`select count(*) as n from analytics_events where workspace_id = ?`),
    'events rolled up': rolled.events,
    'daily rollup rows': await count(`select count(*) as n from analytics_rollups_daily where workspace_id = ?`),
  };
  const detail = created[0]![0]!;
  return {
    workspaceId: big.workspaceId,
    workspaceName: big.plan.label,
    owner: people[0]!.owner,
    detailCampaign: { id: detail.id, name: detail.name },
    searchTerm: THEMES[3]!,
    auditAction: 'mcp.manage_campaigns.publish',
    sizes,
  };
}
