/**
 * Benchmark: every console page on a large workspace (`npm run bench:console`; `-- --events 200000` for a
 * quick run while developing). Target (issue 23): every page answers in < 100 ms p95 on a workspace with 1,000
 * campaigns and 10M events, against a bare route measured in the same run.
 *
 * 1. Seed (bench/support/console-seed.ts), in a PostgreSQL of its own (embedded, migrated): one brand with
 *    `--campaigns` campaigns (variants, deployments, a spread of statuses and times), people, API keys,
 *    products, surfaces, jobs with their credit ledger entries, audit lines, and `--events` analytics events
 *    over `--days` days through the real recorder and rollups; two small shops beside it.
 * 2. Start the real HTTP app in its own process (bench/support/console-server.ts) with a bare Koa route beside
 *    it, and sign the brand's owner in through the real `/signin` form.
 * 3. Probe every page of the table below once: 404 is MISSING (a page not built yet), another status or a
 *    heading that does not match is WRONG; neither is measured. Then each page in turn, and the bare route
 *    before and after them: `--connections` connections for `--seconds` seconds after a warm-up; p50/p95/p99
 *    from every response time; every answer checked (200 and the page's heading).
 * 4. Table: p50, p95, p99, p95 ÷ the bare route's p95, PASS/FAIL against 100 ms p95 (FAIL also when any
 *    answer was wrong). `--profile` then records a CPU profile of the app under each page that exists and
 *    missed the target (with `--only`, under each measured page), and prints where its time went.
 *
 * Other options: `--only <text>` measures only the pages whose label contains it; `--analytics-query`
 * (the analytics window's query, `window=%dd` by default); `--save <dir>` writes each probed page's HTML there (to
 * see what a page sends); `--statements` loads `pg_stat_statements` into the embedded PostgreSQL and prints each
 * measured page's costliest statements per answer, planning apart; `--seed`, `--now`; `--keep <dir>` keeps the seeded
 * database in that folder and, on a later run with the same folder, measures it again without seeding (the full
 * seed takes half an hour; the long windows' reach builds are refreshed for the day of the run). A filtered page (a status, a
 * search, a window, an audit action) that answers exactly what its unfiltered page answers is WRONG: the
 * parameter was ignored, and measuring it would pass the unfiltered page off as the filtered one.
 * Exit code 1 when a page that exists fails.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfigOrExit } from '../src/config.ts';
import { resolveWindow } from '../src/domain/analytics/analytics-window.ts';
import { refreshWindowBuilds } from '../src/domain/analytics/window-reach.ts';
import { createContainer } from '../src/container.ts';
import { createLogger } from '../src/logger.ts';
import { printCpuProfile } from './support/cpu-profile-summary.ts';
import { checkPage, pageLoad, processCpuMs, type PageLoadResult } from './support/console-load.ts';
import { postgresBackendCpuMs, postgresCpuBetween } from './support/postgres-cpu.ts';
import { seedConsole, type ConsoleSeed } from './support/console-seed.ts';
import type { ConsoleServerInfo } from './support/console-server.ts';
import { request, signIn } from './support/console-session.ts';
import { startServerProcess } from './support/server-process.ts';
import { freePort, startBenchStack } from './support/stack.ts';

/**
 * The analytics page's window query, `%d` standing for the days (7, 28, 90): the page reads `?window=7d`
 * (the `query_analytics` window names); `--analytics-query` measures a page that reads another parameter.
 */
const ANALYTICS_WINDOW_QUERY = 'window=%dd';
/** The campaign list's "live" filter: a campaign on the site is `published` (campaign-status.ts). */
const LIVE_STATUS = 'published';
/** The campaign list's search parameter. */
const CAMPAIGN_SEARCH_PARAM = 'q';
const TARGET_P95_MS = 100;

interface ConsolePage {
  label: string;
  /** Path under `/w/:workspaceId`. */
  path: (seed: ConsoleSeed) => string;
  /** What the page's `<h1>` must say (error pages say "Not found", "Not allowed", …). */
  heading: (seed: ConsoleSeed) => RegExp;
  /**
   * A page this one must differ from (its unfiltered form): a filter or window parameter the page ignores
   * would otherwise measure the unfiltered page under the filter's name.
   */
  differsFrom?: string;
  /** Text the page must contain (beside its heading): what shows that it answered the parameter it was given. */
  mustShow?: (seed: ConsoleSeed) => string;
}

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '10000000' },
    campaigns: { type: 'string', default: '1000' },
    days: { type: 'string', default: '90' },
    connections: { type: 'string', default: process.env.BENCH_CONNECTIONS ?? '4' },
    seconds: { type: 'string', default: process.env.BENCH_SECONDS ?? '5' },
    'warmup-seconds': { type: 'string', default: '1' },
    seed: { type: 'string', default: '20261127' },
    now: { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: process.env.BENCH_PROFILE === '1' },
    'analytics-query': { type: 'string', default: ANALYTICS_WINDOW_QUERY },
    keep: { type: 'string' },
    save: { type: 'string' },
    statements: { type: 'boolean', default: false },
  },
});
const EVENTS = Number(values.events);
const CAMPAIGNS = Number(values.campaigns);
const DAYS = Number(values.days);
const CONNECTIONS = Number(values.connections);
const SECONDS = Number(values.seconds);
const WARMUP_SECONDS = Number(values['warmup-seconds']);
const SEED = Number(values.seed);
const NOW = values.now ? new Date(values.now) : new Date();
const analyticsQuery = values['analytics-query'];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const fixed = (pattern: RegExp) => () => pattern;

/** Every console page, in NAV order: the settings pages that exist, then the pages issue 23 adds. */
const PAGES: ConsolePage[] = [
  { label: 'overview', path: () => '', heading: (s) => new RegExp(`^${escapeRegExp(s.workspaceName)}$`) },
  { label: 'campaigns', path: () => '/campaigns', heading: fixed(/campaigns/i) },
  {
    label: 'campaigns, live',
    path: () => `/campaigns?status=${LIVE_STATUS}`,
    heading: fixed(/campaigns/i),
    differsFrom: 'campaigns',
  },
  {
    label: 'campaigns, search',
    path: (s) => `/campaigns?${CAMPAIGN_SEARCH_PARAM}=${encodeURIComponent(s.searchTerm)}`,
    heading: fixed(/campaigns/i),
    differsFrom: 'campaigns',
  },
  {
    label: 'campaign detail',
    path: (s) => `/campaigns/${s.detailCampaign.id}`,
    heading: (s) => new RegExp(escapeRegExp(s.detailCampaign.name)),
  },
  { label: 'jobs', path: () => '/jobs', heading: fixed(/jobs|approvals/i) },
  ...[7, 28, 90].map((days) => ({
    label: `analytics ${days}d`,
    path: () => `/analytics?${analyticsQuery.replace('%d', String(days))}`,
    heading: fixed(/analytics/i),
    ...(days === 7 ? {} : { differsFrom: 'analytics 7d' }),
    // The window's first day, as the analytics service resolves it (a page answering its default window for
    // an ignored parameter does not show it).
    mustShow: () => resolveWindow(`${days}d`, new Date()).from,
  })),
  { label: 'brand', path: () => '/brand', heading: fixed(/brand/i) },
  { label: 'products', path: () => '/products', heading: fixed(/products/i) },
  { label: 'media', path: () => '/media', heading: fixed(/media/i) },
  { label: 'surfaces', path: () => '/surfaces', heading: fixed(/surfaces/i) },
  { label: 'members', path: () => '/members', heading: fixed(/^Members of /) },
  { label: 'API keys', path: () => '/keys', heading: fixed(/^API keys$/) },
  { label: 'custom domains', path: () => '/domains', heading: fixed(/^Custom domains$/) },
  { label: 'channels', path: () => '/channels', heading: fixed(/^Channels$/) },
  { label: 'connected apps', path: () => '/apps', heading: fixed(/^Connected apps$/) },
  { label: 'audit log', path: () => '/audit', heading: fixed(/^Audit log$/) },
  {
    label: 'audit log, one action',
    path: (s) => `/audit?action=${encodeURIComponent(s.auditAction)}`,
    heading: fixed(/^Audit log$/),
    differsFrom: 'audit log',
  },
  { label: 'credits', path: () => '/credits', heading: fixed(/^Credits$/) },
];

const log = (...args: unknown[]) => console.log(...args);
const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const cpu = (x: number | null) => (x === null ? '?' : x.toFixed(1));
const command =
  `node bench/console.ts --events ${EVENTS} --campaigns ${CAMPAIGNS} --days ${DAYS} --connections ${CONNECTIONS} ` +
  `--seconds ${SECONDS} --seed ${SEED} --analytics-query '${analyticsQuery}'${values.only ? ` --only ${values.only}` : ''}${values.profile ? ' --profile' : ''}${values.statements ? ' --statements' : ''}`;
log(command);
log(
  `${os.cpus().length} CPUs, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(
      ' ',
    )} (shared machine: read the ratios to the bare route, not absolute times across runs), Node ${process.version}`,
);

const keptSeedFile = values.keep ? path.resolve(values.keep, 'seed.json') : '';
/** What a kept seed must match to be measured again, and what the app needs to read it (the sealing secret). */
interface KeptSeed {
  options: { events: number; campaigns: number; days: number; seed: number };
  cookieSecrets: string;
  seededAt: string;
  seed: ConsoleSeed;
}
const seedOptions = { events: EVENTS, campaigns: CAMPAIGNS, days: DAYS, seed: SEED };
const kept = keptSeedFile
  ? ((await fs.readFile(keptSeedFile, 'utf8').then(JSON.parse, () => null)) as KeptSeed | null)
  : null;
if (kept && JSON.stringify(kept.options) !== JSON.stringify(seedOptions)) {
  throw new Error(
    `${keptSeedFile} holds a seed of ${JSON.stringify(kept.options)}, not ${JSON.stringify(seedOptions)}`,
  );
}
/** `--statements`: PostgreSQL's own account of each statement (`pg_stat_statements`, planning included). */
const STATEMENT_SETTINGS = {
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.track_planning': 'on',
};
const stack = await startBenchStack('console', {
  ...(values.keep ? { keepDir: values.keep } : {}),
  ...(values.statements ? { postgresSettings: STATEMENT_SETTINGS } : {}),
});
const statementsDb = values.statements ? new pg.Client({ connectionString: stack.databaseUrl }) : null;
if (statementsDb) {
  await statementsDb.connect();
  await statementsDb.query('create extension if not exists pg_stat_statements');
}
/** The statements of this database since the last reset, the costliest first, per answer (`--statements`). */
async function statementsPerAnswer(answers: number) {
  const { rows } = await statementsDb!.query<{ calls: string; exec: number; plan: number; query: string }>(
    `select calls, total_exec_time as exec, total_plan_time as plan, query from pg_stat_statements
     where dbid = (select oid from pg_database where datname = current_database()) and query not like '%pg_stat_statements%'
     order by total_exec_time + total_plan_time desc limit 10`,
  );
  return rows.map((row) => ({
    'calls per answer': (Number(row.calls) / answers).toFixed(1),
    'exec ms per answer': (row.exec / answers).toFixed(3),
    'plan ms per answer': (row.plan / answers).toFixed(3),
    statement: row.query.replace(/\s+/g, ' ').slice(0, 110),
  }));
}
const statementTables = new Map<string, Awaited<ReturnType<typeof statementsPerAnswer>>>();
const profileFile = values.profile ? path.resolve('.data/bench', `console-${Date.now()}.cpuprofile`) : '';
let server: Awaited<ReturnType<typeof startServerProcess<ConsoleServerInfo>>> | undefined;
let failed = false;
try {
  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    HTTP_PORT: String(await freePort()),
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    DATABASE_POOL_MAX: '10',
    // The seeding container and the app must share it: the OAuth signing key is sealed with it at first start.
    COOKIE_SECRETS: kept?.cookieSecrets ?? randomBytes(32).toString('base64url'),
  };

  // ── 1. Seed ──────────────────────────────────────────────────────────────────────────────────────────
  const seeding = performance.now();
  const container = await createContainer(loadConfigOrExit({ ...process.env, ...env }), {
    log: createLogger({ level: 'silent', name: 'bench' }),
    migrate: false,
    lazyTemporal: true,
  });
  let seed: ConsoleSeed;
  try {
    if (kept) {
      seed = kept.seed;
      const built = await refreshWindowBuilds(container.orm);
      log(`Measuring the seed kept in ${values.keep} (seeded ${kept.seededAt}); ${built} window builds refreshed.`);
    } else
      seed = await seedConsole(
        {
          orm: container.orm,
          workspaces: container.services.workspaces,
          products: container.services.products,
          surfaces: container.services.surfaces,
        },
        {
          campaigns: CAMPAIGNS,
          events: EVENTS,
          days: DAYS,
          seed: SEED,
          now: NOW,
          progress: (line) => log(`[${((performance.now() - seeding) / 1000).toFixed(0)} s] ${line}`),
        },
      );
    if (keptSeedFile && !kept) {
      const keep: KeptSeed = {
        options: seedOptions,
        cookieSecrets: env.COOKIE_SECRETS,
        seededAt: NOW.toISOString(),
        seed,
      };
      await fs.writeFile(keptSeedFile, JSON.stringify(keep, null, 2));
    }
  } finally {
    await container.close();
  }
  log(`\nSeeded in ${((performance.now() - seeding) / 1000).toFixed(0)} s. ${seed.workspaceName}:`);
  console.table(
    Object.entries(seed.sizes).map(([what, n]) => ({
      what,
      count: typeof n === 'number' ? n.toLocaleString('en-US') : n,
    })),
  );

  // ── 2. The app, and a signed-in owner ──────────────────────────────────────────────────────────────────
  server = await startServerProcess<ConsoleServerInfo>('bench/support/console-server.ts', {
    ...env,
    ...(profileFile ? { BENCH_PROFILE_FILE: profileFile } : {}),
  });
  const { app, bare, platformHost, bareBytes } = server.info;
  const cookie = await signIn(app, platformHost, seed.owner.email, seed.owner.password);
  const headers = { host: platformHost, cookie, accept: 'text/html' };
  const pageUrl = (p: ConsolePage) => `/w/${seed.workspaceId}${p.path(seed)}`;

  // ── 3. Probe, then measure ─────────────────────────────────────────────────────────────────────────────
  const pages = PAGES.filter((p) => !values.only || p.label.includes(values.only));
  const probes = new Map<ConsolePage, { state: 'ok' | 'MISSING' | 'WRONG'; reason: string | null; bytes: number }>();
  const bodies = new Map<string, string>();
  const bodyOf = async (p: ConsolePage) => {
    if (!bodies.has(p.label)) bodies.set(p.label, (await request(app, platformHost, pageUrl(p), { cookie })).body);
    return bodies.get(p.label)!;
  };
  for (const p of pages) {
    const answer = await request(app, platformHost, pageUrl(p), { cookie });
    bodies.set(p.label, answer.body);
    let reason = checkPage(answer.status, answer.body, p.heading(seed));
    const reference = PAGES.find((other) => other.label === p.differsFrom);
    if (reason === null && reference && (await bodyOf(reference)) === answer.body) {
      reason = `answers exactly the "${reference.label}" page: its parameter is ignored`;
    }
    const shown = p.mustShow?.(seed);
    if (reason === null && shown !== undefined && !answer.body.includes(shown)) {
      reason = `does not show "${shown}": the parameter is not answered`;
    }
    if (values.save) {
      await fs.mkdir(values.save, { recursive: true });
      await fs.writeFile(path.join(values.save, `${p.label.replace(/\W+/g, '-')}.html`), answer.body);
    }
    probes.set(p, {
      state: answer.status === 404 ? 'MISSING' : reason === null ? 'ok' : 'WRONG',
      reason,
      bytes: Buffer.byteLength(answer.body),
    });
  }
  const database = new URL(stack.databaseUrl).pathname.slice(1);
  const serverPid = server.child.pid!;
  /**
   * A load run, with the CPU the app process and the PostgreSQL backends spent per answer: unlike p95 on a
   * shared machine, that hardly depends on what else runs (Linux only; null elsewhere).
   */
  const run = async (label: string, url: string, heading: RegExp, seconds: number) => {
    const [appBefore, postgresBefore] = [await processCpuMs(serverPid), await postgresBackendCpuMs(database)];
    const result = await pageLoad({ label, url, headers, connections: CONNECTIONS, durationSeconds: seconds, heading });
    // autocannon stops at the deadline with a request in flight on each connection; the app finishes them
    // anyway. Let it, so a slow page's tail does not land in the next page's figures (or profile), and count
    // them in the CPU per answer.
    await sleep(Math.min(5000, 500 + 2 * (Number.isFinite(result.p99) ? result.p99 : 5000)));
    const [appAfter, postgresAfter] = [await processCpuMs(serverPid), await postgresBackendCpuMs(database)];
    const per = (ms: number) => (result.requests ? ms / (result.requests + CONNECTIONS) : null);
    return {
      ...result,
      appCpuMs: appBefore !== null && appAfter !== null ? per(appAfter - appBefore) : null,
      postgresCpuMs: postgresBefore && postgresAfter ? per(postgresCpuBetween(postgresBefore, postgresAfter)) : null,
    };
  };
  type Measured = Awaited<ReturnType<typeof run>>;
  const bareUrl = `http://127.0.0.1:${bare}/`;
  const bareHeading = /^Bare page$/;
  await run('warm-up', bareUrl, bareHeading, WARMUP_SECONDS);
  const bareBefore = await run('bare route, before the pages', bareUrl, bareHeading, SECONDS);
  const results = new Map<ConsolePage, Measured>();
  for (const p of pages) {
    if (probes.get(p)!.state !== 'ok') continue;
    const url = `http://127.0.0.1:${app}${pageUrl(p)}`;
    await run('warm-up', url, p.heading(seed), WARMUP_SECONDS);
    await statementsDb?.query('select pg_stat_statements_reset()');
    const result = await run(p.label, url, p.heading(seed), SECONDS);
    results.set(p, result);
    // Like the CPU per answer: the requests in flight at the deadline finished inside the run too.
    if (statementsDb) statementTables.set(p.label, await statementsPerAnswer(result.requests + CONNECTIONS));
  }
  const bareAfter = await run('bare route, after the pages', bareUrl, bareHeading, SECONDS);
  const bareP95 = (bareBefore.p95 + bareAfter.p95) / 2;

  // ── 4. Report ──────────────────────────────────────────────────────────────────────────────────────────
  const verdictOf = (r: PageLoadResult) =>
    r.requests > 0 && r.p95 < TARGET_P95_MS && r.errors === 0 && r.wrongStatus === 0 && r.invalid === 0
      ? 'PASS'
      : 'FAIL';
  const rows: Record<string, unknown>[] = [bareBefore, bareAfter].map((r) => ({
    page: `${r.label} (${bareBytes} B from memory)`,
    path: '/',
    'p50 ms': ms(r.p50),
    'p95 ms': ms(r.p95),
    'p99 ms': ms(r.p99),
    'p95 ÷ bare': '',
    'req/s': Math.round(r.requestsPerSecond),
    requests: r.requests,
    'app CPU ms/req': cpu(r.appCpuMs),
    'PG CPU ms/req': cpu(r.postgresCpuMs),
    KB: (bareBytes / 1024).toFixed(1),
    verdict: '',
  }));
  const notes: string[] = [];
  for (const p of pages) {
    const probe = probes.get(p)!;
    const r = results.get(p);
    const verdict = r ? verdictOf(r) : probe.state;
    if (verdict === 'FAIL' || verdict === 'WRONG') failed = true;
    if (probe.state === 'WRONG') notes.push(`${p.label}: ${probe.reason}`);
    if (r && r.requests === 0) notes.push(`${p.label}: no answer completed within ${SECONDS} s`);
    if (r && (r.errors || r.wrongStatus || r.invalid)) {
      notes.push(
        `${p.label}: ${r.errors} socket errors, ${r.wrongStatus} wrong statuses, ${r.invalid} without the heading (${r.reasons.join('; ')})`,
      );
    }
    rows.push({
      page: p.label,
      path: `/w/:id${p.path(seed).replace(seed.detailCampaign.id, ':campaignId')}`,
      'p50 ms': r ? ms(r.p50) : '',
      'p95 ms': r ? ms(r.p95) : '',
      'p99 ms': r ? ms(r.p99) : '',
      'p95 ÷ bare': r ? `${(r.p95 / bareP95).toFixed(1)}×` : '',
      'req/s': r ? Math.round(r.requestsPerSecond) : '',
      requests: r ? r.requests : '',
      'app CPU ms/req': r ? cpu(r.appCpuMs) : '',
      'PG CPU ms/req': r ? cpu(r.postgresCpuMs) : '',
      KB: probe.state === 'MISSING' ? '' : (probe.bytes / 1024).toFixed(1),
      verdict,
    });
  }
  log(
    `\nConsole pages as the workspace owner, ${CONNECTIONS} connections, ${SECONDS} s each after a ${WARMUP_SECONDS} s ` +
      `warm-up; bare route p95 ${ms(bareBefore.p95)} ms before and ${ms(bareAfter.p95)} ms after the pages ` +
      `(ratios against their mean). Target: p95 < ${TARGET_P95_MS} ms, every answer 200 with the page's heading.`,
  );
  console.table(rows);
  for (const note of notes) log(`  ${note}`);
  // The same table in Markdown, for docs/console-performance.md.
  const columns = Object.keys(rows[0]!);
  log(`\n| ${columns.join(' | ')} |\n| ${columns.map(() => '---').join(' | ')} |`);
  for (const row of rows) log(`| ${columns.map((column) => String(row[column]).replaceAll('|', '\\|')).join(' | ')} |`);
  const counts = (state: string) => rows.filter((row) => row.verdict === state).length;
  log(
    `\n${counts('PASS')} PASS, ${counts('FAIL')} FAIL, ${counts('MISSING')} MISSING (404: not built yet), ` +
      `${counts('WRONG')} WRONG (answered, but not the page) of ${pages.length} pages.`,
  );

  for (const [label, table] of statementTables) {
    log(`\nPostgreSQL statements of ${label}, per answer (pg_stat_statements; execution includes sending the rows):`);
    console.table(table);
  }

  if (profileFile) {
    await fs.mkdir(path.dirname(profileFile), { recursive: true });
    for (const p of pages) {
      const r = results.get(p);
      // Every page that missed the target; with --only, every measured page (to look at one on purpose).
      if (!r || (r.p95 < TARGET_P95_MS && !values.only)) continue;
      const started = server.nextLine('{"profiling":true');
      server.child.kill('SIGUSR2');
      await started;
      const profiled = await run(p.label, `http://127.0.0.1:${app}${pageUrl(p)}`, p.heading(seed), SECONDS);
      const written = server.nextLine('{"profiled":');
      server.child.kill('SIGUSR2');
      await written;
      const file = profileFile.replace(/\.cpuprofile$/, `-${p.label.replace(/\W+/g, '-')}.cpuprofile`);
      await fs.rename(profileFile, file);
      await fs.rename(`${profileFile}.sql.json`, `${file}.sql.json`);
      await printCpuProfile(
        file,
        profiled.requests,
        `CPU profile of the app during ${profiled.requests} × ${p.label} (p95 ${ms(profiled.p95)} ms)`,
      );
      const sent = JSON.parse(await fs.readFile(`${file}.sql.json`, 'utf8')) as [string, number][];
      // Like the CPU per answer: the requests in flight at the deadline finished inside the profile too.
      const perRequest = (n: number) => (n / (profiled.requests + CONNECTIONS)).toFixed(1);
      log(
        `SQL statements per request: ${perRequest(sent.reduce((sum, [, n]) => sum + n, 0))} ` +
          `(${sent.length} distinct); the most frequent:`,
      );
      console.table(
        sent.slice(0, 8).map(([text, n]) => ({ 'per request': perRequest(n), statement: text.slice(0, 160) })),
      );
    }
  }
} finally {
  await server?.stop();
  await statementsDb?.end();
  await stack.stop();
}
process.exitCode = failed ? 1 : 0;
