/**
 * The evaluation sets of issue 22 are data that other tests score engines against, so they are checked
 * themselves: big enough (the counts), well-formed, and true to their own rules. A concierge fact must
 * be verbatim in the brand's content (an extractive engine can only quote); a brief's accepted prices must be
 * what the market's locale writes; its key terms must come from its intent. A fixture edit that breaks one of
 * these would silently change what the engine evaluations measure.
 */
import fs from 'node:fs';
import path from 'node:path';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');

interface ConciergeBrand {
  brand: {
    displayName: string;
    tagline: string | null;
    description: string | null;
    website: string | null;
    contactEmail: string | null;
    faq: { question: string; answer: string }[];
  };
  products: {
    title: string;
    description: string | null;
    price: number | null;
    currency: string;
    attributes: Record<string, string>;
  }[];
  campaigns: {
    name: string;
    summary: string | null;
    startsAt: string;
    endsAt: string;
    variants: { headline: string; body: string; callToAction: string }[];
  }[];
  now: string;
  answerable: { q: string; facts: string[]; kind: string }[];
  unanswerable: { q: string; kind: string }[];
}

interface Brief {
  id: string;
  market: { country: string; locale: string };
  intent: string;
  product: { title: string; description: string; price: number; currency: string; attributes: Record<string, string> };
  brand: { colors: Record<string, string> };
  expect: { keyTerms: string[][]; acceptedPrices: string[]; facts: string[] };
}

const conciergeDir = path.join(FIXTURES, 'concierge-eval');
const brands: [string, ConciergeBrand][] = fs
  .readdirSync(conciergeDir)
  .filter((file) => file.endsWith('.json'))
  .map((file) => [file, JSON.parse(fs.readFileSync(path.join(conciergeDir, file), 'utf8')) as ConciergeBrand]);
const briefs = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'creative-briefs/briefs.json'), 'utf8')) as Brief[];

/** Everything a brand publishes, as one lower-case text. */
function contentOf({ brand, products, campaigns }: ConciergeBrand): string {
  return [
    brand.displayName,
    brand.tagline,
    brand.description,
    brand.website,
    brand.contactEmail,
    ...brand.faq.flatMap((entry) => [entry.question, entry.answer]),
    ...products.flatMap((p) => [p.title, p.description, String(p.price), p.currency, ...Object.values(p.attributes)]),
    ...campaigns.flatMap((c) => [
      c.name,
      c.summary,
      ...c.variants.flatMap((v) => [v.headline, v.body, v.callToAction]),
    ]),
  ]
    .filter(Boolean)
    .join('\n')
    .toLowerCase();
}

const spaces = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

describe('the concierge evaluation set', () => {
  it('has at least 3 brands, 150 answerable and 60 unanswerable questions, none twice', () => {
    expect(brands.length).toBeGreaterThanOrEqual(3);
    const answerable = brands.flatMap(([, set]) => set.answerable);
    const unanswerable = brands.flatMap(([, set]) => set.unanswerable);
    expect(answerable.length).toBeGreaterThanOrEqual(150);
    expect(unanswerable.length).toBeGreaterThanOrEqual(60);
    for (const [, set] of brands) {
      const questions = [...set.answerable, ...set.unanswerable].map((entry) => entry.q.toLowerCase());
      expect(new Set(questions).size).toBe(questions.length);
    }
  });

  it.each(brands)(
    '%s: every required fact is verbatim in the brand content, and campaigns are both live and ended',
    (_file, set) => {
      const content = contentOf(set);
      const missing = set.answerable.flatMap((entry) =>
        entry.facts.length === 0
          ? [`${entry.q}: no facts`]
          : entry.facts.filter((fact) => !content.includes(fact.toLowerCase())).map((fact) => `${entry.q}: ${fact}`),
      );
      expect(missing).toEqual([]);
      const now = Date.parse(set.now);
      const live = set.campaigns.filter((c) => Date.parse(c.startsAt) <= now && now <= Date.parse(c.endsAt));
      expect(live.length).toBeGreaterThan(0);
      expect(live.length).toBeLessThan(set.campaigns.length);
    },
  );
});

describe('the creative evaluation briefs', () => {
  it('has at least 20 briefs in more than 10 markets', () => {
    expect(briefs.length).toBeGreaterThanOrEqual(20);
    expect(new Set(briefs.map((brief) => brief.market.locale)).size).toBeGreaterThan(10);
    expect(new Set(briefs.map((brief) => brief.id)).size).toBe(briefs.length);
  });

  it.each(briefs.map((brief) => [brief.id, brief] as const))(
    '%s: prices as the locale writes them, facts and key terms from the brief',
    (_id, brief) => {
      const format = (options: Intl.NumberFormatOptions) =>
        spaces(
          new Intl.NumberFormat(brief.market.locale, {
            style: 'currency',
            currency: brief.product.currency,
            ...options,
          }).format(brief.product.price),
        );
      const expected = [
        format({}),
        ...(Number.isInteger(brief.product.price)
          ? [format({ minimumFractionDigits: 0, maximumFractionDigits: 0 })]
          : []),
      ];
      expect(brief.expect.acceptedPrices.map(spaces)).toEqual(expected);
      const product = [brief.product.title, brief.product.description, ...Object.values(brief.product.attributes)]
        .join('\n')
        .toLowerCase();
      expect(brief.expect.facts.filter((fact) => !product.includes(fact.toLowerCase()))).toEqual([]);
      const intent = brief.intent.toLowerCase();
      expect(
        brief.expect.keyTerms.filter((terms) => !terms.some((term) => intent.includes(term.toLowerCase()))),
      ).toEqual([]);
      expect(Object.values(brief.brand.colors).every((colour) => /^#[0-9a-f]{6}$/i.test(colour))).toBe(true);
    },
  );
});
