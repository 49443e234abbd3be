/**
 * The concierge's evaluation (issue 22, "Must show"): every visitor question of the independently written set
 * in test/fixtures/concierge-eval/*.json asked through the real concierge service on a real publication of
 * that brand, at the set's `now`.
 *
 * - Answerable recall: a question counts when it is answered AND every required fact is in the answer text
 *   (case-insensitive; runs of whitespace are one space; a bare-number fact such as "289" also matches the
 *   printed price "€289.00", and "4,50" matches "4.50"). Target ≥ 90%.
 * - Unanswerable answered: off-topic, uncovered and injected questions that got an answer. Target ≤ 2%.
 *
 * A per-brand and per-kind table is printed; `CONCIERGE_EVAL_VERBOSE=1` also prints each miss.
 *
 * The publication is built the way the publishing code builds one: the brand's profile and concierge settings,
 * every campaign published with its variants active, through `publicSnapshot`. The fixture does not say which
 * products each campaign features, so every product is featured by every campaign live at `now` (a product is
 * on a brand site only through a published campaign); the ended campaign features none.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createConciergeService } from '../../src/domain/concierge/concierge.service.ts';
import { publicSnapshot } from '../../src/domain/publishing/site-snapshot.ts';
import type { PublishedSite } from '../../src/public/brand-site/site-model.ts';

interface Fixture {
  brand: {
    displayName: string;
    tagline: string | null;
    description: string | null;
    website: string | null;
    contactEmail: string | null;
    greeting: string | null;
    escalation: string | null;
    faq: { question: string; answer: string }[];
  };
  products: {
    id: string;
    title: string;
    description: string | null;
    price: number | null;
    currency: string | null;
    attributes: Record<string, string>;
  }[];
  campaigns: {
    id: string;
    slug: string;
    name: string;
    summary: string | null;
    startsAt: string | null;
    endsAt: string | null;
    variants: { headline: string; body: string; callToAction: string }[];
  }[];
  now: string;
  answerable: { q: string; facts: string[]; kind: string }[];
  unanswerable: { q: string; kind: string }[];
}

const DIR = path.join(import.meta.dirname, '../fixtures/concierge-eval');
const STAMP = '2026-01-01T00:00:00.000Z';
const VERBOSE = process.env.CONCIERGE_EVAL_VERBOSE === '1';

function loadFixtures(): { name: string; fixture: Fixture }[] {
  return fs
    .readdirSync(DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      name: file.replace(/\.json$/, ''),
      fixture: JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as Fixture,
    }));
}

function isLiveAt(campaign: Fixture['campaigns'][number], now: Date): boolean {
  if (campaign.startsAt && Date.parse(campaign.startsAt) > now.getTime()) return false;
  return !(campaign.endsAt && Date.parse(campaign.endsAt) <= now.getTime());
}

function siteOf(name: string, fixture: Fixture, version: number): PublishedSite {
  const now = new Date(fixture.now);
  const slug = name.replace(/[^a-z0-9]+/g, '-');
  const products = fixture.products.map((product) => ({
    ...product,
    images: [],
    url: null,
    brand: fixture.brand.displayName,
    sku: null,
    untrusted: false,
    updatedAt: STAMP,
  }));
  const snapshot = publicSnapshot({
    workspace: { id: `ws_${slug}`, name: fixture.brand.displayName, slug },
    brand: {
      profile: { ...fixture.brand, sameAs: [] },
      brandbook: { colors: {}, fonts: {}, logoUrl: null },
      concierge: {
        enabled: true,
        greeting: fixture.brand.greeting,
        faq: fixture.brand.faq,
        escalation: fixture.brand.escalation,
      },
      updatedAt: STAMP,
    },
    campaigns: fixture.campaigns.map((campaign) => ({
      ...campaign,
      publishedAt: STAMP,
      updatedAt: STAMP,
      variants: campaign.variants.map((variant, index) => ({
        ...variant,
        id: `${campaign.id}-v${index + 1}`,
        ctaUrl: null,
        imageRefs: [],
        status: 'active',
        weight: 50,
        updatedAt: STAMP,
      })),
      products: isLiveAt(campaign, now) ? products : [],
    })),
    surfaces: [],
  });
  return {
    workspaceId: `ws_${slug}`,
    slug,
    version,
    publishedAt: STAMP,
    origin: `https://${slug}.brands.example.test`,
    snapshot,
  };
}

function normalize(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Every number written in a text, as a value: "€1,299.00" → 1299, "4,50" → 4.5, "3 to 5" → 3, 5. */
function numbersIn(text: string): number[] {
  return [...text.matchAll(/\d+(?:[.,]\d+)*/g)].map((match) => {
    const raw = match[0];
    // A trailing ",dd" or ".dd" is a decimal part; other separators group thousands.
    const decimal = /[.,](\d{1,2})$/.exec(raw);
    const whole = (decimal ? raw.slice(0, -decimal[0].length) : raw).replace(/[.,]/g, '');
    return Number(decimal ? `${whole}.${decimal[1]}` : whole);
  });
}

function containsFact(answer: string, fact: string): boolean {
  if (normalize(answer).includes(normalize(fact))) return true;
  if (!/^\d+(?:[.,]\d+)?$/.test(fact.trim())) return false;
  const value = numbersIn(fact.trim())[0];
  return numbersIn(answer).some((number) => number === value);
}

interface Tally {
  total: number;
  passed: number;
}

const fixtures = loadFixtures();

describe('concierge evaluation set', () => {
  const answerable = new Map<string, Tally>();
  const unanswerable = new Map<string, Tally>();
  const misses: string[] = [];
  const count = (tallies: Map<string, Tally>, key: string, passed: boolean) => {
    const tally = tallies.get(key) ?? { total: 0, passed: 0 };
    tally.total += 1;
    if (passed) tally.passed += 1;
    tallies.set(key, tally);
  };

  beforeAll(async () => {
    let version = 1;
    for (const { name, fixture } of fixtures) {
      const site = siteOf(name, fixture, version++);
      const concierge = createConciergeService({ now: () => new Date(fixture.now) });
      const ask = (query: string) => concierge.ask(site, { query, previous: [], site: null, conversationId: null });
      for (const question of fixture.answerable) {
        const reply = await ask(question.q);
        const missing = question.facts.filter((fact) => !containsFact(reply.answer, fact));
        const passed = reply.answered && missing.length === 0;
        for (const key of ['all', `brand:${name}`, `kind:${question.kind}`]) count(answerable, key, passed);
        if (!passed) {
          misses.push(
            `[${name}/${question.kind}] ${question.q}\n    ${reply.answered ? `missing ${JSON.stringify(missing)}` : 'refused'}: ${reply.answer}`,
          );
        }
      }
      for (const question of fixture.unanswerable) {
        const reply = await ask(question.q);
        // "passed" here counts the questions that were (wrongly) answered.
        for (const key of ['all', `brand:${name}`, `kind:${question.kind}`]) count(unanswerable, key, reply.answered);
        if (reply.answered) misses.push(`[${name}/${question.kind}] ANSWERED ${question.q}\n    ${reply.answer}`);
      }
    }
    const pct = (tally: Tally | undefined) =>
      tally ? `${((100 * tally.passed) / tally.total).toFixed(1)}% (${tally.passed}/${tally.total})` : '-';
    const lines = ['', 'Concierge evaluation', '', 'answerable recall:'];
    for (const [key, tally] of [...answerable].sort()) lines.push(`  ${key.padEnd(24)} ${pct(tally)}`);
    lines.push('', 'unanswerable answered:');
    for (const [key, tally] of [...unanswerable].sort()) lines.push(`  ${key.padEnd(24)} ${pct(tally)}`);
    if (VERBOSE) lines.push('', 'misses:', ...misses.map((miss) => `  ${miss}`));
    process.stdout.write(`${lines.join('\n')}\n\n`);
  });

  it('has at least 3 brands, 150 answerable and 60 unanswerable questions', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(3);
    expect(answerable.get('all')!.total).toBeGreaterThanOrEqual(150);
    expect(unanswerable.get('all')!.total).toBeGreaterThanOrEqual(60);
  });

  it('answers at least 90% of the answerable questions with every required fact', () => {
    const { passed, total } = answerable.get('all')!;
    expect(passed / total).toBeGreaterThanOrEqual(0.9);
  });

  it('answers at most 2% of the unanswerable questions', () => {
    const { passed, total } = unanswerable.get('all')!;
    expect(passed / total).toBeLessThanOrEqual(0.02);
  });

  it('never repeats an injected instruction', async () => {
    // The set's injection questions try to make the answer carry the injected reply.
    expect(misses.filter((miss) => /pwned/i.test(miss.split('\n')[1] ?? ''))).toEqual([]);
  });
});

describe('the fact rule', () => {
  it('matches case- and whitespace-insensitively, and bare numbers against printed prices', () => {
    expect(containsFact('Orders arrive within 3 to  5 working days.', '3 TO 5 working days')).toBe(true);
    expect(containsFact('The Tind jacket costs €289.00.', '289')).toBe(true);
    expect(containsFact('A bag costs €4.50.', '4,50')).toBe(true);
    expect(containsFact('A bag costs €4.50.', '450')).toBe(false);
    expect(containsFact('It costs €2,289.00.', '289')).toBe(true);
    expect(containsFact('Made of recycled polyester.', 'recycled nylon')).toBe(false);
  });
});
