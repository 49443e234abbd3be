/**
 * Benchmark: the brand-site concierge (`POST /ask`, built-in extractive engine) on a brand with 1,000
 * published documents (50 FAQ entries, 300 campaigns, 650 products), against a bare Koa JSON route measured in
 * the same run. Target: p95 < 100 ms for /ask.
 *
 * The load goes to a server in its own process (so the load generator does not share its event loop), with
 * the real routes, the real PostgreSQL rate limiter (limit raised so every request does the full work) and the
 * real event recorder. Questions rotate through a mix of answerable and unanswerable ones; the same questions
 * are also run through the engine in-process to show the mix and the engine's own cost.
 *
 *   node bench/ask.ts            (BENCH_CONNECTIONS, default 50; BENCH_SECONDS, default 10)
 *
 * The same file is the server when started with ASK_BENCH_ROLE=server.
 */
import http from 'node:http';
import autocannon from 'autocannon';
import Koa from 'koa';
import { createSiteEventRecorder } from '../src/domain/analytics/event-recorder.ts';
import { createBufferedSink } from '../src/domain/analytics/buffered-sink.ts';
import type { BrandView } from '../src/domain/brand/brand.service.ts';
import type { VariantView } from '../src/domain/campaigns/campaigns.service.ts';
import { parseAskRequest } from '../src/domain/concierge/ask-request.ts';
import { createContentIndexCache } from '../src/domain/concierge/content-index.ts';
import { createConciergeService } from '../src/domain/concierge/concierge.service.ts';
import { createExtractiveEngine } from '../src/domain/concierge/engine.ts';
import type { ProductView } from '../src/domain/products/products.service.ts';
import type { SiteSnapshot } from '../src/domain/publishing/site-snapshot.ts';
import { createRateLimiter } from '../src/domain/rate-limits/rate-limiter.ts';
import { createOrm } from '../src/db/orm.ts';
import { conciergeRoutes } from '../src/http/routes/brand-concierge.ts';
import { errorBoundary } from '../src/http/middleware/error-boundary.ts';
import { createLogger } from '../src/logger.ts';
import type { PublishedSite } from '../src/public/brand-site/site-model.ts';
import { startBenchStack } from './support/stack.ts';
import { startServerProcess } from './support/server-process.ts';

const STAMP = '2026-06-01T00:00:00.000Z';
const ORIGIN = 'https://bench.brands.example.test';
const VISITORS = 200;

// ---------------------------------------------------------------------------------------------------------
// The fixture brand: deterministic, 1,000 published documents.

const SEASONS = ['Spring', 'Summer', 'Autumn', 'Winter'];
const MATERIALS = [
  'linen',
  'merino',
  'cotton',
  'wool',
  'leather',
  'canvas',
  'cashmere',
  'hemp',
  'silk',
  'denim',
  'ceramic',
  'glass',
  'steel',
  'oak',
  'alpaca',
];
const THEMES = ['edit', 'essentials', 'collection', 'sale', 'favourites'];
const TYPES = ['shirt', 'sweater', 'jacket', 'tote', 'mug', 'scarf', 'hat', 'blanket', 'cushion', 'backpack'];
const COLOURS = ['sand', 'navy', 'olive', 'rust', 'ivory', 'charcoal', 'moss', 'clay', 'pine', 'sky'];
const COUNTRIES = [
  'Norway',
  'Sweden',
  'Denmark',
  'Finland',
  'Germany',
  'France',
  'Spain',
  'Italy',
  'Portugal',
  'Austria',
  'Belgium',
  'the Netherlands',
  'Poland',
  'Ireland',
  'the UK',
  'Switzerland',
  'Canada',
  'the USA',
  'Japan',
  'Australia',
];
const HEADS =
  'Ask Bri Dal Eid Fjo Gra Hav Isa Jor Kve Lin Mo Nor Oks Pol Rau Sol Tin Ulv Ved Vik Yst Aur Bjo Fon Hel'.split(' ');
const TAILS =
  'a en ing ur ild vik dal stad heim fjell und ros lund berg nes by sund holm strand li mark skog haug eng vang tun'.split(
    ' ',
  );

/** mulberry32: a tiny seeded PRNG, so every run benchmarks the same brand and questions. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)]!;
}

function product(index: number, next: () => number): ProductView {
  const material = MATERIALS[index % MATERIALS.length]!;
  const type = TYPES[Math.floor(index / MATERIALS.length) % TYPES.length]!;
  const model = HEADS[index % HEADS.length]! + TAILS[Math.floor(index / HEADS.length) % TAILS.length]!;
  const care = ['Machine washable at 30 °C.', 'Hand wash only.', 'Dishwasher safe.', 'Wipe clean with a damp cloth.'];
  return {
    id: `prod_${index}`,
    title: `${model} ${material} ${type}`,
    description: `Made from ${material} sourced in ${pick(next, COUNTRIES)}. ${pick(next, care)} Comes with a ${
      1 + Math.floor(next() * 5)
    }-year guarantee.`,
    price: 15 + Math.floor(next() * 250),
    currency: 'EUR',
    images: [],
    storedImages: [],
    imageFailures: [],
    url: null,
    brand: 'Nordlys',
    sku: `NL-${index}`,
    attributes: { Colours: `${pick(next, COLOURS)} and ${pick(next, COLOURS)}`, Material: material },
    origin: 'manual',
    sourceUrl: null,
    untrusted: false,
    createdAt: STAMP,
    updatedAt: STAMP,
  };
}

function variant(campaignId: string, n: number, headline: string, body: string): VariantView {
  return {
    id: `${campaignId}_v${n}`,
    campaignId,
    name: `Variant ${n}`,
    headline,
    body,
    callToAction: 'Shop now',
    ctaUrl: null,
    imageRefs: [],
    channelFields: {},
    status: 'active',
    weight: 1,
    isControl: n === 1,
    source: 'manual',
    version: 1,
    createdAt: STAMP,
    updatedAt: STAMP,
  };
}

function faq(): BrandView['concierge']['faq'] {
  const entries = COUNTRIES.map((country, index) => ({
    question: `Do you ship to ${country}?`,
    answer: `Yes, we ship to ${country}. Orders arrive within ${2 + (index % 6)} working days.`,
  }));
  for (const material of MATERIALS) {
    entries.push({
      question: `How do I care for ${material}?`,
      answer: `Treat ${material} gently: follow the label, dry it flat and keep it out of direct sun.`,
    });
  }
  const policies: [string, string][] = [
    ['What is your returns policy?', 'You can return unused items within 30 days for a full refund.'],
    ['Which payment methods do you accept?', 'We accept cards, PayPal, Klarna and gift cards.'],
    ['Do you sell gift cards?', 'Gift cards come in values from 25 to 500 euros and never expire.'],
    ['Where is your shop?', 'Our flagship shop is in Bergen, on Bryggen 12.'],
    ['What are your opening hours?', 'The Bergen shop opens Monday to Saturday from 10 to 18.'],
    ['Do you offer a warranty?', 'Every product comes with a guarantee of at least one year.'],
    ['How do sizes fit?', 'Our clothes fit true to size; the size guide on each product page has measurements.'],
    ['Are your products sustainable?', 'We use natural fibres and repair anything we sell for free.'],
    ['Can I change my order?', 'Orders can be changed within one hour of purchase by writing to us.'],
    ['Do you have a newsletter?', 'Our newsletter comes once a month with new collections and events.'],
    ['Do you offer student discounts?', 'Students get 10 percent off with a valid student card.'],
    ['Can I pick up my order in store?', 'Click and collect is free at the Bergen shop.'],
    ['Do you repair products?', 'We repair any Nordlys product for free for its whole life.'],
    ['How can I contact customer service?', 'Write to hello@nordlys.example and we answer within a day.'],
    ['Do you ship internationally?', 'We ship to twenty countries in Europe, North America and Asia.'],
  ];
  for (const [question, answer] of policies) entries.push({ question, answer });
  return entries;
}

/** A publication with 1,000 documents: 50 FAQ entries, 300 campaigns and 650 products. */
export function benchSite(origin = ORIGIN): PublishedSite {
  const next = random(42);
  const products = Array.from({ length: 650 }, (_, index) => product(index, next));
  const campaigns: SiteSnapshot['campaigns'] = [];
  for (let index = 0; index < 300; index += 1) {
    const season = SEASONS[index % SEASONS.length]!;
    const material = MATERIALS[Math.floor(index / SEASONS.length) % MATERIALS.length]!;
    const theme = THEMES[Math.floor(index / (SEASONS.length * MATERIALS.length)) % THEMES.length]!;
    const id = `camp_${index}`;
    const name = `${season} ${material} ${theme}`;
    campaigns.push({
      id,
      name,
      summary: null,
      slug: name.toLowerCase().replace(/\s+/g, '-'),
      startsAt: null,
      endsAt: null,
      publishedAt: STAMP,
      updatedAt: STAMP,
      variants: [
        variant(id, 1, `${season} in ${material}`, `Our ${material} pieces for ${season.toLowerCase()}, made to last.`),
        variant(
          id,
          2,
          `New ${material} for ${season.toLowerCase()}`,
          `Fresh colours in ${material}, in small batches.`,
        ),
      ],
      // Every product is in one campaign; a few are in two.
      products: [products[index]!, products[index + 300]!, ...(index < 50 ? [products[index + 600]!] : [])],
    });
  }
  const brand: BrandView = {
    brandbook: {
      colors: { primary: '#1B4D3E', secondary: '#F2E8CF', accent: '#BC4749', background: '#FFFFFF', text: '#1B1F24' },
      fonts: { heading: 'Georgia, serif', body: 'system-ui, sans-serif' },
      logoUrl: null,
      rules: [],
    },
    profile: {
      displayName: 'Nordlys',
      tagline: 'Northern goods for everyday life.',
      description: 'Nordlys designs clothes and home goods in Bergen and makes them in small European workshops.',
      website: null,
      contactEmail: 'hello@nordlys.example',
      sameAs: [],
    },
    voice: { tone: null, personality: [], doSay: [], dontSay: [], sampleCopy: null },
    concierge: {
      enabled: true,
      greeting: 'Hi! Ask me about our products, shipping or returns.',
      faq: faq(),
      escalation: 'Write to hello@nordlys.example and a person will help.',
    },
    version: 1,
    updatedAt: STAMP,
  };
  return {
    workspaceId: 'ws_bench',
    slug: 'nordlys',
    version: 1,
    publishedAt: STAMP,
    origin,
    snapshot: { workspace: { id: 'ws_bench', name: 'Nordlys', slug: 'nordlys' }, brand, campaigns, surfaces: [] },
  };
}

const UNANSWERABLE = [
  'who won the 1998 world cup?',
  'What is the capital of Peru?',
  'how do I fix the brakes on my car',
  'Do you sell laptops?',
  "what's the weather tomorrow in Oslo",
  'recommend a good pizza place nearby',
  'how many moons does Jupiter have',
  'translate hello into Japanese',
];

/** 400 questions: 60% about the brand's content, 40% about anything else, interleaved. */
export function benchQuestions(site: PublishedSite): { query: string; answerable: boolean }[] {
  const next = random(7);
  const products = site.snapshot.campaigns.flatMap((campaign) => campaign.products);
  const questions: { query: string; answerable: boolean }[] = [];
  for (let index = 0; index < 400; index += 1) {
    if (index % 5 >= 3) {
      questions.push({ query: UNANSWERABLE[index % UNANSWERABLE.length]!, answerable: false });
      continue;
    }
    const kind = index % 4;
    const query =
      kind === 0
        ? `How much is the ${pick(next, products).title}?`
        : kind === 1
          ? `Do you ship to ${pick(next, COUNTRIES)}?`
          : kind === 2
            ? `Tell me about the ${pick(next, site.snapshot.campaigns).name}`
            : `What colours does the ${pick(next, products).title} come in?`;
    questions.push({ query, answerable: true });
  }
  return questions;
}

// ---------------------------------------------------------------------------------------------------------
// Server role: two listeners, the bare baseline and the concierge.

function listen(app: Koa): Promise<number> {
  return new Promise((resolve) => {
    const server = http.createServer(app.callback());
    server.keepAliveTimeout = 65_000;
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

async function serve(): Promise<void> {
  const log = createLogger({ level: 'silent', name: 'bench' });
  const orm = await createOrm({ url: process.env.DATABASE_URL!, poolMax: 20 });
  const site = benchSite();
  const cache = createContentIndexCache();
  // Built before listening, so the first measured request does not pay for it.
  cache.get(site);

  const bare = new Koa();
  const payload = { ok: true };
  bare.use((ctx) => {
    ctx.body = payload;
  });

  const app = new Koa();
  app.use(errorBoundary(log));
  app.use(async (ctx, next) => {
    ctx.state.brandSite = site;
    ctx.state.visitor = { sessionId: '', address: ctx.get('x-bench-visitor') || ctx.ip };
    await next();
  });
  app.use(
    conciergeRoutes({
      concierge: createConciergeService({ engine: createExtractiveEngine(cache) }),
      limiter: createRateLimiter(orm),
      events: createBufferedSink(createSiteEventRecorder(orm), { log }),
      log,
      perVisitorPerMinute: 1_000_000,
    }).routes(),
  );
  const [barePort, askPort] = [await listen(bare), await listen(app)];
  process.stdout.write(`${JSON.stringify({ ready: true, bare: barePort, ask: askPort })}\n`);
}

// ---------------------------------------------------------------------------------------------------------
// Load role.

interface Measured {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** autocannon, keeping every response time so p95 can be read (its own summary has p90 and p97.5). */
function measure(
  label: string,
  options: autocannon.Options,
  durationSeconds: number,
  connections: number,
): Promise<Measured> {
  const times: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon({ ...options, connections, duration: durationSeconds }, (error, result) => {
      if (error) return reject(error);
      times.sort((a, b) => a - b);
      resolve({
        label,
        requestsPerSecond: result.requests.average,
        p50: percentile(times, 50),
        p95: percentile(times, 95),
        p99: percentile(times, 99),
        errors: result.errors + result.timeouts,
        non2xx: result.non2xx,
        total: result.requests.total,
      });
    });
    instance.on('response', (_client, _status, _bytes, responseTime: number) => times.push(responseTime));
  });
}

function askLoad(port: number, questions: { query: string }[]): autocannon.Options {
  let next = 0;
  return {
    url: `http://127.0.0.1:${port}/ask`,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const index = next++;
          return {
            ...request,
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-bench-visitor': `10.0.0.${index % VISITORS}` },
            body: JSON.stringify({ query: questions[index % questions.length]!.query }),
          };
        },
      },
    ],
  };
}

async function engineOnly(site: PublishedSite, questions: { query: string; answerable: boolean }[]) {
  const cache = createContentIndexCache();
  const started = performance.now();
  cache.get(site);
  const buildMs = performance.now() - started;
  const concierge = createConciergeService({ engine: createExtractiveEngine(cache) });
  const times: number[] = [];
  const outcome = { answerable: { asked: 0, answered: 0 }, unanswerable: { asked: 0, answered: 0 } };
  for (let round = 0; round < 5; round += 1) {
    for (const question of questions) {
      const t0 = performance.now();
      const reply = await concierge.ask(site, parseAskRequest({ query: question.query }));
      times.push(performance.now() - t0);
      if (round > 0) continue;
      const bucket = question.answerable ? outcome.answerable : outcome.unanswerable;
      bucket.asked += 1;
      if (reply.answered) bucket.answered += 1;
    }
  }
  times.sort((a, b) => a - b);
  return { buildMs, p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99), outcome };
}

function row(measured: Measured, baseline: Measured) {
  return {
    case: measured.label,
    'req/s': Math.round(measured.requestsPerSecond),
    'p50 ms': Number(measured.p50.toFixed(1)),
    'p95 ms': Number(measured.p95.toFixed(1)),
    'p99 ms': Number(measured.p99.toFixed(1)),
    errors: measured.errors,
    'non-2xx': measured.non2xx,
    requests: measured.total,
    'vs baseline': `${((measured.requestsPerSecond / baseline.requestsPerSecond) * 100).toFixed(1)}%`,
  };
}

async function main(): Promise<void> {
  // Latency is read below saturation (10 connections) and at the house load (50): on a saturated server p95
  // is mostly queueing, i.e. connections divided by throughput.
  const levels = [...new Set([10, Number(process.env.BENCH_CONNECTIONS ?? 50)])];
  const duration = Number(process.env.BENCH_SECONDS ?? 10);
  const site = benchSite();
  const questions = benchQuestions(site);
  const documents =
    site.snapshot.brand.concierge.faq.length +
    site.snapshot.campaigns.length +
    new Set(site.snapshot.campaigns.flatMap((campaign) => campaign.products.map((p) => p.id))).size;

  const engine = await engineOnly(site, questions);
  const stack = await startBenchStack('ask');
  let server: Awaited<ReturnType<typeof startServerProcess<{ bare: number; ask: number }>>> | undefined;
  try {
    server = await startServerProcess<{ bare: number; ask: number }>('bench/ask.ts', {
      ASK_BENCH_ROLE: 'server',
      NODE_ENV: 'test',
      DATABASE_URL: stack.databaseUrl,
    });
    const { bare, ask } = server.info;
    const rows: ReturnType<typeof row>[] = [];
    const verdicts: string[] = [];
    for (const connections of levels) {
      // Warm up both paths (JIT, connection pools) before measuring.
      await measure('warm-up', { url: `http://127.0.0.1:${bare}/` }, 2, connections);
      await measure('warm-up', askLoad(ask, questions), 3, connections);
      const baseline = await measure(
        `bare Koa JSON route, ${connections} conn.`,
        { url: `http://127.0.0.1:${bare}/` },
        duration,
        connections,
      );
      const concierge = await measure(
        `POST /ask (limit + engine + event), ${connections} conn.`,
        askLoad(ask, questions),
        duration,
        connections,
      );
      rows.push(row(baseline, baseline), row(concierge, baseline));
      const met = concierge.p95 < 100 && concierge.errors === 0 && concierge.non2xx === 0;
      verdicts.push(`${connections} connections: ${met ? 'met' : 'NOT met'} (p95 ${concierge.p95.toFixed(1)} ms)`);
    }

    console.log(
      `\nconcierge /ask on ${documents} published documents, ${questions.length} rotating questions ` +
        `(60% answerable), ${duration} s per case`,
    );
    console.table(rows);
    console.log('\nengine only (in-process, sequential, 5 rounds of the question set)');
    console.table([
      {
        'index build ms': Math.round(engine.buildMs),
        'p50 ms': Number(engine.p50.toFixed(2)),
        'p95 ms': Number(engine.p95.toFixed(2)),
        'p99 ms': Number(engine.p99.toFixed(2)),
        'answerable answered': `${engine.outcome.answerable.answered}/${engine.outcome.answerable.asked}`,
        'unanswerable answered': `${engine.outcome.unanswerable.answered}/${engine.outcome.unanswerable.asked}`,
      },
    ]);
    console.log(`\ntarget p95 < 100 ms for /ask: ${verdicts.join('; ')}`);
  } finally {
    await server?.stop();
    await stack.stop();
  }
}

if (import.meta.main) {
  if (process.env.ASK_BENCH_ROLE === 'server') await serve();
  else await main();
}
