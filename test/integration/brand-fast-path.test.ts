/**
 * The brand hot path (src/http/brand-fast-path.ts) answers exactly as the Koa route does: for each request
 * below, one server runs the hot path before Koa (recording whether the hot path answered) and another runs
 * Koa alone, on the same container; status, headers and body bytes must match. Requests the hot path must
 * leave to Koa are checked to reach Koa.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { NO_METRICS, type HttpRequestRecord } from '../../src/observability/metrics.ts';
import type { SiteEvent } from '../../src/domain/analytics/site-events.ts';
import { Workspace } from '../../src/domain/workspaces/workspace.entity.ts';
import { createBrandFastPath } from '../../src/http/brand-fast-path.ts';
import { brandSiteUrl, createSiteResolver } from '../../src/http/hosts.ts';
import { createLogger } from '../../src/logger.ts';
import { createTenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';
import { scopeOf, seedWorkspace } from '../support/seed.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

let platform: TestPlatform;
let brandHost: string;
let campaignPath: string;
let productPath: string;
const servers: http.Server[] = [];
let hotPort: number;
let koaPort: number;
/** Whether the hot path answered the latest request to the hot-path server (requests are sequential). */
let answeredByHotPath = false;
const hotPathImpressions: SiteEvent[] = [];
/** What the hot path counted and logged, and how many requests it answered. */
const hotPathCounted: HttpRequestRecord[] = [];
const hotPathLogLines: Record<string, unknown>[] = [];
let hotPathAnswered = 0;

function listen(listener: http.RequestListener): Promise<number> {
  const server = http.createServer(listener);
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function ask(port: number, path: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  const response = await testFetch(`http://${brandHost}:${port}${path}`, { method, headers });
  const all: Record<string, string> = {};
  // The date moves and the connection headers belong to the transport, not to the answer.
  response.headers.forEach((value, name) => {
    if (!['date', 'connection', 'keep-alive'].includes(name)) all[name] = value;
  });
  return { status: response.status, headers: all, body: await response.text() };
}

/**
 * The hot-path server's answer once the caches are warm: a request may fill them through Koa, and the host's
 * head is remembered only BRAND_SITE_CACHE_TTL_MS (1 s), so on a slow machine it may need filling again.
 */
async function hotAnswer(path: string, headers: Record<string, string>): Promise<Answer> {
  return pollUntil(
    () => ask(hotPort, path, headers),
    () => answeredByHotPath,
    { timeoutMs: 10_000, intervalMs: 0, timeoutMessage: `the hot path never answered ${path}` },
  );
}

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true, label: 'hotpath' });
  const tenant = await createTenant(platform.container, { name: 'Hot Path Linen' });
  const seeded = await seedWorkspace(platform.container, tenant, 'Hot');
  const workspace = await acrossWorkspaces(platform.container.orm.em).findOneOrFail(Workspace, {
    id: tenant.workspaceId,
  });
  brandHost = new URL(brandSiteUrl(platform.config, workspace.slug)).hostname;
  const campaign = await platform.container.services.campaigns.get(
    scopeOf(platform.container, tenant),
    seeded.campaignId,
  );
  campaignPath = `/campaigns/${campaign.slug}`;
  productPath = `/products/${seeded.productId}`;

  const koa = platform.app.callback();
  const hotPath = createBrandFastPath({
    resolveSite: createSiteResolver(platform.config),
    reader: platform.container.services.siteReader,
    servedEvents: {
      record: async (events) => {
        hotPathImpressions.push(...events);
      },
    },
    log: createLogger(
      { level: 'info', name: 'test' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          hotPathLogLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      }),
    ),
    metrics: { ...NO_METRICS, httpRequest: (record) => hotPathCounted.push(record) },
    trustProxy: platform.config.http.trustProxy,
  });
  hotPort = await listen((req, res) => {
    answeredByHotPath = hotPath(req, res);
    if (answeredByHotPath) hotPathAnswered += 1;
    if (!answeredByHotPath) void koa(req, res);
  });
  koaPort = await listen(koa);
  // publish and deploy signalled the republish workflow; the worker renders the site.
  await pollUntil(
    () => ask(koaPort, campaignPath, {}),
    (answer) => answer.status === 200,
    { timeoutMs: 30_000, intervalMs: 200, timeoutMessage: 'the site was never published' },
  );
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await platform?.close();
  await closeTestFetch();
});

const visitor = { cookie: 'cp_vid=HHHHHHHHHHHHHHHHHHHHHH', 'x-request-id': 'hot-path-test' };

describe('the hot path answers as Koa does', () => {
  const cases: [string, () => string, Record<string, string>][] = [
    ['a campaign page (HTML)', () => campaignPath, visitor],
    ['its markdown twin (Accept)', () => campaignPath, { ...visitor, accept: 'text/markdown' }],
    ['its markdown twin (.md suffix)', () => `${campaignPath}.md`, visitor],
    ['a trailing slash and a query string', () => `${campaignPath}/?utm_source=agent`, visitor],
    [
      'a browser Accept header',
      () => campaignPath,
      { ...visitor, accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    ],
    ['a surface page with a filled zone, as markdown', () => '/home', { ...visitor, accept: 'text/markdown' }],
    ['a product page', () => productPath, visitor],
    ['the home page', () => '/', visitor],
    ['llms.txt (a stored file)', () => '/llms.txt', visitor],
    ['the agent card', () => '/.well-known/agent-card.json', visitor],
    ['a skill', () => '/.well-known/agent-skills/ask-venue/SKILL.md', visitor],
    [
      'a quoted visitor cookie among others',
      () => campaignPath,
      { cookie: 'a=1; cp_vid="HHHHHHHHHHHHHHHHHHHHHH"; b=2' },
    ],
  ];

  test.each(cases)('%s', async (_label, path, headers) => {
    const hot = await hotAnswer(path(), headers);
    const reference = await ask(koaPort, path(), headers);
    expect(hot.status).toBe(200);
    expect(hot.headers).toEqual(
      headers['x-request-id']
        ? reference.headers
        : { ...reference.headers, 'x-request-id': hot.headers['x-request-id'] },
    );
    expect(hot.body).toBe(reference.body);
  });

  test('a markdown twin served by the hot path records the impression Koa would', async () => {
    hotPathImpressions.length = 0;
    const answer = await hotAnswer(campaignPath, { ...visitor, accept: 'text/markdown' });
    expect(hotPathImpressions).toHaveLength(1);
    const [impression] = hotPathImpressions;
    expect(impression).toMatchObject({
      type: 'impression',
      sessionId: 'HHHHHHHHHHHHHHHHHHHHHH',
      properties: { source: 'markdown' },
    });
    // The impression names the variant the visitor was shown (the ETag carries the chosen variant ids).
    expect(answer.headers.etag).toContain(impression!.variantId!);
    hotPathImpressions.length = 0;
    await hotAnswer(campaignPath, visitor);
    expect(hotPathImpressions).toHaveLength(0); // HTML pages report through the beacon script
  });
});

test('every request the hot path answers is counted and logged once, as Koa does its own', async () => {
  hotPathCounted.length = 0;
  hotPathLogLines.length = 0;
  const answeredBefore = hotPathAnswered;
  await hotAnswer(campaignPath, visitor);
  await hotAnswer('/llms.txt', visitor);
  expect(hotPathAnswered - answeredBefore).toBeGreaterThanOrEqual(2);
  expect(hotPathCounted).toHaveLength(hotPathAnswered - answeredBefore);
  expect(hotPathCounted[0]).toMatchObject({ host: 'brand', route: 'document', method: 'GET', status: 200 });
  const requests = hotPathLogLines.filter((line) => line.msg === 'request');
  expect(requests).toHaveLength(hotPathCounted.length);
  expect(requests[0]).toMatchObject({
    level: 30,
    requestId: 'hot-path-test',
    host: 'brand',
    route: 'document',
    method: 'GET',
    status: 200,
    principal: 'anonymous',
    durationMs: expect.any(Number),
  });
  expect(JSON.stringify(requests)).not.toMatch(/cp_vid|HHHHHHHHHHHHHHHHHHHHHH|campaigns\//);
});

describe('the hot path leaves to Koa', () => {
  const declined: [string, string | (() => string), Record<string, string>, string?][] = [
    ['a first visit (the visitor cookie is minted)', () => campaignPath, {}],
    ['a malformed visitor cookie', () => campaignPath, { cookie: 'cp_vid=short' }],
    ['a conditional request', () => campaignPath, { ...visitor, 'if-none-match': '"x"' }],
    ['an If-Modified-Since request', () => campaignPath, { ...visitor, 'if-modified-since': new Date().toUTCString() }],
    ['negotiated markdown', () => campaignPath, { ...visitor, accept: 'text/markdown;q=0.9, text/html;q=0.5' }],
    ['HEAD', () => campaignPath, visitor, 'HEAD'],
    ['a percent-encoded path', () => `${campaignPath}%2F`, visitor],
    ['an unknown page', '/no/such/page', visitor],
    ['the beacon script', '/_cp/beacon.js', visitor],
  ];

  test.each(declined)('%s', async (_label, path, headers, method = 'GET') => {
    const target = typeof path === 'string' ? path : path();
    // Warm the caches for this path first, so a decline is the hot path's rule, not a cache miss.
    await ask(koaPort, target, headers, method);
    const hot = await ask(hotPort, target, headers, method);
    expect(answeredByHotPath).toBe(false);
    const reference = await ask(koaPort, target, headers, method);
    expect(hot.status).toBe(reference.status);
  });

  test('another site on the same listener is not a brand document', async () => {
    const root = new URL(platform.config.urls.base).hostname;
    const response = await testFetch(`http://${root}:${hotPort}/llms.txt`);
    expect(answeredByHotPath).toBe(false);
    expect(response.status).toBeLessThan(500);
  });
});

describe('a failure inside the hot path', () => {
  test('is logged and the request goes to Koa, never to the process', async () => {
    const warnings: unknown[] = [];
    const log = createLogger({ level: 'silent', name: 'test' });
    const failing = createBrandFastPath({
      resolveSite: createSiteResolver(platform.config),
      reader: {
        ...platform.container.services.siteReader,
        cached: {
          ...platform.container.services.siteReader.cached,
          document: () => {
            throw new Error('the cache broke');
          },
        },
      },
      servedEvents: { record: async () => undefined },
      log: Object.assign(Object.create(log) as typeof log, { warn: (...args: unknown[]) => warnings.push(args) }),
      trustProxy: false,
    });
    const koa = platform.app.callback();
    let declined = false;
    const port = await listen((req, res) => {
      declined = !failing(req, res);
      if (declined) void koa(req, res);
    });
    await ask(koaPort, campaignPath, visitor); // the head is cached, so the hot path reaches the document
    const answer = await ask(port, campaignPath, visitor);
    expect(declined).toBe(true);
    expect(warnings).toHaveLength(1);
    const reference = await ask(koaPort, campaignPath, visitor);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(reference.body);
  });
});
