/**
 * Benchmark server for brand-site serving (a separate process, so the load generator does not share its
 * event loop). It seeds a brand with published campaigns, publishes it through the real publishing activity
 * (render + store), and listens twice:
 *   - bare: a Koa route answering, per path and Accept, the app's exact response bytes from memory (the
 *           static baseline);
 *   - app:  the real application (host dispatch, brand host, document store and caches, variant assembly).
 * Prints one JSON line `{ ready, bare, app, host, campaignPath, bytes }` when listening (bytes per case).
 *
 * With BENCH_PROFILE_FILE set, SIGUSR2 starts a V8 CPU profile of this process (through `node:inspector`, no
 * debugger port) and the next SIGUSR2 writes it to that file and prints `{"profiled":"<file>"}`.
 */
import fs from 'node:fs/promises';
import { NO_METRICS } from '../../src/observability/metrics.ts';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import Koa from 'koa';
import { createPublishingActivities } from '../../activities/publishing.ts';
import { loadConfigOrExit, processEnv } from '../../src/config.ts';
import { createContainer } from '../../src/container.ts';
import { createHttpApp } from '../../src/http/app.ts';
import { brandSiteUrl } from '../../src/http/hosts.ts';
import { createLogger } from '../../src/logger.ts';
import { TOOL_SERVER_LISTING } from '../../src/mcp/tool-listing.ts';
import { acrossWorkspaces, workspaceScope, actors } from '../../src/domain/shared/scope.ts';

const config = loadConfigOrExit(processEnv());
const log = createLogger({ level: 'silent', name: 'bench' });
const container = await createContainer(config, { log, migrate: false });
const { workspaces, campaigns, products, surfaces } = container.services;
const em = acrossWorkspaces(container.orm.em);
const owner = await workspaces.createUser(em, { email: `bench-${Date.now()}@example.test`, name: 'Bench' });
const workspace = await workspaces.createWorkspace(em, { name: 'Bench Brand', ownerUserId: owner.id });
const scope = workspaceScope(container.orm.em, workspace.id, actors.operator);
const campaignCount = Number(processEnv().BENCH_CAMPAIGNS ?? 50);
let firstSlug = '';
const surface = await surfaces.createSurface(scope, { name: 'Home', kind: 'brand_page', path: '/summer' });
const zone = await surfaces.createZone(scope, { surfaceId: surface.id, name: 'Hero', key: 'hero', kind: 'hero' });
for (let i = 0; i < campaignCount; i += 1) {
  const product = await products.create(scope, {
    title: `Linen shirt no. ${i}`,
    description: 'Breathable washed linen, cut loose for hot days. Machine washable at 30 °C.',
    price: 40 + i,
    currency: 'EUR',
    images: [`https://cdn.example.test/shirt-${i}.jpg`],
  });
  const campaign = await campaigns.create(scope, {
    name: `Summer linen ${i}`,
    objective: 'Sell shirts',
    productIds: [product.id],
  });
  firstSlug ||= campaign.slug;
  for (const headline of ['Stay cool', 'Feel light']) {
    await campaigns.createVariant(scope, campaign.id, {
      headline: `${headline} ${i}`,
      body: 'Linen that breathes, for the hottest days of the year.',
      callToAction: 'Shop now',
    });
  }
  await campaigns.publish(scope, campaign.id);
  if (i < 3) await campaigns.deploy(scope, { campaignId: campaign.id, zoneId: zone.id });
}

const noop = { requestRepublish: async () => undefined };
const publishing = createPublishingActivities({
  orm: container.orm,
  log,
  studio: undefined as never,
  safeFetch: undefined as never,
  republish: noop,
  brand: container.services.brand,
  generation: undefined as never,
  audit: undefined as never,
  metrics: NO_METRICS,
  channels: undefined as never,
  channelMetricsMaxAgeDays: 0,
  sites: {
    links: { base: config.urls.base, platform: config.urls.platform, auth: config.urls.auth },
    subdomainOrigin: (slug) => brandSiteUrl(config, slug),
    toolServer: async () => TOOL_SERVER_LISTING,
  },
});
await publishing.publishSite({ workspaceId: workspace.id, reasons: ['bench'] });

const { listener } = createHttpApp(container);
const host = new URL(brandSiteUrl(config, workspace.slug)).host;
const campaignPath = `/campaigns/${firstSlug}`;

// The baseline answers, at the same path and for the same Accept, the very bytes and content type the real
// app answers, from memory: each case is compared with serving its own response statically.
const samplePaths = [campaignPath, '/summer', '/llms.txt'];
const samples = new Map<string, { type: string; body: string }>();
await new Promise<void>((resolve, reject) => {
  const server = http.createServer(listener).listen(0, '127.0.0.1', async () => {
    const port = (server.address() as { port: number }).port;
    try {
      for (const path of samplePaths) {
        for (const accept of ['text/html', 'text/markdown']) {
          const response = await fetchOnce(port, path, accept);
          samples.set(`${path} ${accept}`, response);
        }
      }
      server.close(() => resolve());
    } catch (error) {
      reject(error as Error);
    }
  });
});

function fetchOnce(port: number, path: string, accept: string): Promise<{ type: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(
        { host: '127.0.0.1', port, path, headers: { host, accept, cookie: 'cp_vid=AAAAAAAAAAAAAAAAAAAAAA' } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ type: String(res.headers['content-type']), body }));
        },
      )
      .on('error', reject);
  });
}

const bare = new Koa();
bare.use((ctx) => {
  const accept = ctx.get('accept').includes('text/markdown') ? 'text/markdown' : 'text/html';
  const sample = samples.get(`${ctx.path} ${accept}`);
  if (!sample) {
    ctx.status = 404;
    return;
  }
  ctx.set('Content-Type', sample.type);
  ctx.body = sample.body;
});

function listen(listener: http.RequestListener): Promise<number> {
  return new Promise((resolve) => {
    const server = http.createServer(listener);
    server.keepAliveTimeout = 65_000;
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

const [barePort, appPort] = [await listen(bare.callback()), await listen(listener)];
process.stdout.write(
  `${JSON.stringify({
    ready: true,
    bare: barePort,
    app: appPort,
    host,
    campaignPath,
    bytes: Object.fromEntries([...samples].map(([key, sample]) => [key, Buffer.byteLength(sample.body)])),
  })}\n`,
);

const profileFile = processEnv().BENCH_PROFILE_FILE;
if (profileFile) {
  const profiler = new Session();
  let profiling = false;
  process.on('SIGUSR2', () => {
    void (async () => {
      if (!profiling) {
        profiling = true;
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
        await profiler.post('Profiler.start');
        process.stdout.write(`${JSON.stringify({ profiling: true })}\n`);
        return;
      }
      profiling = false;
      const { profile } = await profiler.post('Profiler.stop');
      profiler.disconnect();
      await fs.writeFile(profileFile, JSON.stringify(profile));
      process.stdout.write(`${JSON.stringify({ profiled: profileFile })}\n`);
    })();
  });
}
