/**
 * The concierge's view of one publication: every public piece of the brand site cut into passages (the
 * brand profile, each FAQ entry, each published campaign, each product, each `brand_page` surface), each with
 * the absolute URL of the page it comes from, indexed for BM25 search with MiniSearch.
 *
 * Content is data, and every source is untrusted alike. The brand's FAQ and profile are written through the
 * same agent-facing tools as campaign copy, and an agent that read a poisoned product page can write them as
 * easily, so no source is exempt. Every text that enters the index (quoted sentences, titles, suggestions,
 * searchable keywords) passes through ONE rule, `admitSentences`/`admitLine` below: cleaned to plain text
 * (no markup, no links or addresses) and, when it reads like an instruction to a machine or carries
 * something shaped like a credential ("ignore previous instructions…", "cpk_…"), left out entirely. Such
 * text answers no shopper's question, and leaving it out means no answer can ever carry it. Passage builders
 * never call `cleanText` or the instruction check themselves: a new source gets the rule by construction.
 *
 * Built once per (workspace, version) and cached: a republish bumps the version, so the next question builds
 * a fresh index and the superseded one is dropped.
 */
import { LRUCache } from 'lru-cache';
import MiniSearch from 'minisearch';
import { cleanText, fitLength, looksLikeInstruction, sentencesOf } from '../creative/text/sanitize.ts';
import { formatPrice } from '../products/price.ts';
import type { PublicProduct } from '../publishing/site-snapshot.ts';
import { pageTitleFromPath, sitePaths, type PublishedSite } from '../../public/brand-site/site-model.ts';
import { allowsPrefix, buildVocabulary, processTerm, tokenize, termsOf, type Vocabulary } from './terms.ts';

export type PassageKind = 'profile' | 'faq' | 'campaign' | 'product' | 'page';

export interface Passage {
  id: string;
  kind: PassageKind;
  /** Shown as the source's title and used in suggestions (FAQ: the question). */
  title: string;
  /** Absolute URL of the page the passage comes from. */
  url: string;
  /** Quotable plain-text sentences, in page order. */
  sentences: string[];
  /** The distinct topic terms of each sentence (same order), for choosing the sentences that answer. */
  sentenceTerms: string[][];
  /** A campaign's flight: outside it, the campaign is not offered. ISO times or null. */
  startsAt: string | null;
  endsAt: string | null;
}

/** What MiniSearch indexes per passage; `keywords` is searchable but never quoted. */
interface IndexedPassage {
  id: string;
  title: string;
  body: string;
  keywords: string;
}

export interface ContentIndex {
  workspaceId: string;
  version: number;
  brandName: string;
  passages: Map<string, Passage>;
  search: MiniSearch<IndexedPassage>;
  /** The words the content uses: questions are read against them (see terms.ts). */
  vocabulary: Vocabulary;
  /** Every term of each passage (title, keywords, sentences), by passage id. */
  passageTerms: Map<string, Set<string>>;
  /** FAQ questions, then live campaign names: what to offer when a question cannot be answered. */
  faqQuestions: string[];
  campaignNames: { name: string; startsAt: string | null; endsAt: string | null }[];
  /** The brand's greeting and escalation texts, through the same rule (addresses kept): '' when none. */
  greeting: string;
  escalation: string;
}

const FIELD_BOOST = { title: 3, keywords: 1.5, body: 1 };
/** FAQ entries are answers the brand wrote for exactly this purpose. */
const KIND_BOOST: Record<PassageKind, number> = { faq: 1.25, profile: 1, campaign: 1, product: 1, page: 0.9 };
const MAX_SENTENCE_CHARS = 400;
const MAX_SENTENCES_PER_PASSAGE = 40;

const DATE = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' });

/**
 * The untrusted-text rule for quoted text: the plain sentences of `texts`, without the ones that read like
 * instructions or carry credential-shaped strings, deduplicated. Every source's quotable text comes through
 * here; the only place besides `admitLine` that looks at raw content.
 */
function admitSentences(texts: (string | null | undefined)[], options: { keepAddresses?: boolean } = {}): string[] {
  const seen = new Set<string>();
  const sentences: string[] = [];
  for (const text of texts) {
    // Addresses are kept only where giving one out is the point: the contact sentence, greeting and escalation.
    const clean = cleanText(text, 5000, { stripUrls: !options.keepAddresses });
    for (const raw of sentencesOf(clean)) {
      const sentence = fitLength(/[.!?…:]$/.test(raw) ? raw : `${raw}.`, MAX_SENTENCE_CHARS);
      if (!sentence || looksLikeInstruction(sentence)) continue;
      const key = sentence.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      sentences.push(sentence);
      if (sentences.length >= MAX_SENTENCES_PER_PASSAGE) return sentences;
    }
  }
  return sentences;
}

/**
 * The same rule for a single line (a title, a name, a keyword): plain text, or '' when any sentence of it
 * reads like an instruction (a title is shown whole, so it cannot lose just the bad part).
 */
function admitLine(text: string | null | undefined, max: number): string {
  const clean = cleanText(text, max);
  return clean && !looksLikeInstruction(clean) ? clean : '';
}

function passage(
  fields: Omit<Passage, 'sentenceTerms' | 'startsAt' | 'endsAt'> &
    Partial<Pick<Passage, 'startsAt' | 'endsAt'>> & { extraTerms?: string[][] },
): Passage {
  const { extraTerms, ...rest } = fields;
  return {
    startsAt: null,
    endsAt: null,
    ...rest,
    sentenceTerms: fields.sentences.map((sentence, index) => [
      ...new Set([...termsOf(sentence), ...(extraTerms?.[index] ?? [])]),
    ]),
  };
}

/** A passage and the text indexed with it that is never quoted (names, codes, calls to action). */
interface PassageEntry {
  passage: Passage;
  keywords: string;
}

function productEntry(site: PublishedSite, product: PublicProduct, campaignNames: string[]): PassageEntry {
  const title = admitLine(product.title, 200) || 'Product';
  const price = formatPrice(product);
  const attributes = Object.entries(product.attributes ?? {}).map(([key, value]) => `${key}: ${value}`);
  return {
    passage: passage({
      id: `product:${product.id}`,
      kind: 'product',
      title,
      url: site.origin + sitePaths.product(product.id),
      // The price sentence is written from the structured price, so "how much…" always finds it.
      sentences: [
        ...(price ? [`${title} costs ${price}.`] : []),
        ...admitSentences([product.description, ...attributes]),
      ],
      // The price sentence answers "price" questions as much as "cost" ones, whatever else the content says.
      extraTerms: price ? [termsOf('price')] : [],
    }),
    keywords: [...(price ? ['price'] : []), product.brand, product.sku, ...campaignNames]
      .map((text) => admitLine(text, 200))
      .filter(Boolean)
      .join(' '),
  };
}

/** Cuts a publication into passages. Pure: same publication in, same passages out. */
export function passagesOf(site: PublishedSite): PassageEntry[] {
  const { brand, campaigns, surfaces, workspace } = site.snapshot;
  const home = site.origin + sitePaths.home;
  const brandName = admitLine(brand.profile.displayName, 120) || admitLine(workspace.name, 120) || 'This brand';
  const out: PassageEntry[] = [];

  const profile = brand.profile;
  // The contact sentence is written from the structured field (an e-mail address, checked on write), and goes
  // through the same rule with its address kept: giving it out is its purpose.
  const contact = profile.contactEmail
    ? admitSentences([`You can contact ${brandName} at ${profile.contactEmail}.`], { keepAddresses: true })
    : [];
  out.push({
    passage: passage({
      id: 'profile',
      kind: 'profile',
      title: brandName,
      url: home,
      sentences: [...admitSentences([profile.tagline, profile.description]), ...contact],
    }),
    keywords: 'company brand story mission who we are',
  });

  brand.concierge.faq.forEach((entry, index) => {
    // The question is shown as a source title and offered as a suggestion: an entry whose question does not
    // pass the rule is left out whole, rather than offering a suggestion that leads to an unrelated answer.
    const question = admitLine(entry.question, 300);
    if (!question) return;
    out.push({
      passage: passage({
        id: `faq:${index}`,
        kind: 'faq',
        title: question,
        url: home,
        sentences: admitSentences([entry.answer]),
      }),
      keywords: '',
    });
  });

  const productCampaigns = new Map<string, { product: PublicProduct; campaigns: string[] }>();
  for (const campaign of campaigns) {
    const name = admitLine(campaign.name, 200) || 'Campaign';
    const variants = campaign.variants.filter((variant) => variant.status === 'active');
    // Written without a verb of its own ("runs" would make the campaign an answer to "range", "race", "course").
    const flight =
      campaign.endsAt && campaign.startsAt
        ? [
            `${name} is on from ${DATE.format(new Date(campaign.startsAt))} to ${DATE.format(new Date(campaign.endsAt))}.`,
          ]
        : campaign.endsAt
          ? [`${name} is on until ${DATE.format(new Date(campaign.endsAt))}.`]
          : [];
    out.push({
      passage: passage({
        id: `campaign:${campaign.id}`,
        kind: 'campaign',
        title: name,
        url: site.origin + sitePaths.campaign(campaign.slug),
        sentences: [
          ...admitSentences([campaign.summary, ...variants.flatMap((variant) => [variant.headline, variant.body])]),
          ...flight,
        ],
        startsAt: campaign.startsAt,
        endsAt: campaign.endsAt,
      }),
      keywords: [
        ...variants.map((variant) => variant.callToAction),
        ...campaign.products.map((product) => product.title),
      ]
        .map((text) => admitLine(text, 300))
        .filter(Boolean)
        .join(' '),
    });
    for (const product of campaign.products) {
      const entry = productCampaigns.get(product.id) ?? { product, campaigns: [] };
      entry.campaigns.push(name);
      productCampaigns.set(product.id, entry);
    }
  }
  for (const { product, campaigns: names } of productCampaigns.values()) out.push(productEntry(site, product, names));

  const campaignNameById = new Map(campaigns.map((campaign) => [campaign.id, campaign.name]));
  for (const surface of surfaces) {
    if (surface.kind !== 'brand_page' || !surface.path) continue;
    // A brand page is known by its path and what it features: its surface's name and description are internal.
    const title = admitLine(pageTitleFromPath(surface.path), 200) || brandName;
    const deployed = [
      ...new Set(
        surface.zones.flatMap((zone) =>
          zone.deployments.map((deployment) => admitLine(campaignNameById.get(deployment.campaignId), 200)),
        ),
      ),
    ].filter(Boolean);
    out.push({
      passage: passage({
        id: `page:${surface.id}`,
        kind: 'page',
        title,
        url: site.origin + sitePaths.surface(surface.path),
        sentences: deployed.length > 0 ? [`The ${title} page features ${deployed.join(', ')}.`] : [],
      }),
      keywords: deployed.join(' '),
    });
  }
  return out;
}

/**
 * The search options every query uses: the same term processing as indexing, prefixes sparingly. No fuzzy
 * matching: typos are corrected to the brand's words before the search, and only in words that are no English
 * words ("jaket"), so "weather" never finds "leather".
 */
export const SEARCH_DEFAULTS = {
  boost: FIELD_BOOST,
  prefix: (term: string) => allowsPrefix(term),
  fuzzy: false,
  combineWith: 'OR' as const,
};

export function buildContentIndex(site: PublishedSite): ContentIndex {
  const entries = passagesOf(site);
  const passages = new Map(entries.map(({ passage: value }) => [value.id, value]));
  const search = new MiniSearch<IndexedPassage>({
    fields: ['title', 'body', 'keywords'],
    tokenize: (text) => tokenize(text),
    processTerm: (term) => processTerm(term),
    searchOptions: {
      ...SEARCH_DEFAULTS,
      boostDocument: (id: string) => KIND_BOOST[passages.get(id)?.kind ?? 'page'],
    },
  });
  search.addAll(
    entries.map(({ passage: value, keywords }) => ({
      id: value.id,
      title: value.title,
      body: value.sentences.join(' '),
      keywords,
    })),
  );
  const brandName = passages.get('profile')?.title ?? site.snapshot.workspace.name;
  return {
    workspaceId: site.workspaceId,
    version: site.version,
    brandName,
    passages,
    search,
    vocabulary: buildVocabulary(
      entries.map(({ passage: value, keywords }) => [value.title, keywords, ...value.sentences]),
      brandName,
    ),
    passageTerms: new Map(
      entries.map(({ passage: value, keywords }) => [
        value.id,
        new Set([...termsOf(value.title), ...termsOf(keywords), ...value.sentenceTerms.flat()]),
      ]),
    ),
    greeting: admitSentences([site.snapshot.brand.concierge.greeting], { keepAddresses: true }).join(' '),
    escalation: admitSentences([site.snapshot.brand.concierge.escalation], { keepAddresses: true }).join(' '),
    faqQuestions: entries.filter((entry) => entry.passage.kind === 'faq').map((entry) => entry.passage.title),
    campaignNames: entries
      .filter((entry) => entry.passage.kind === 'campaign')
      .map(({ passage: value }) => ({ name: value.title, startsAt: value.startsAt, endsAt: value.endsAt })),
  };
}

/** Whether a passage is on offer at `now` (campaigns outside their flight are not). */
export function isLive(value: { startsAt: string | null; endsAt: string | null }, now: Date): boolean {
  const time = now.getTime();
  if (value.startsAt && Date.parse(value.startsAt) > time) return false;
  if (value.endsAt && Date.parse(value.endsAt) <= time) return false;
  return true;
}

export interface ContentIndexCache {
  /** The index of this publication, built on first use. */
  get(site: PublishedSite): ContentIndex;
  /** Versions of a workspace's site that are cached right now (oldest first). */
  cachedVersions(workspaceId: string): number[];
}

/**
 * A small LRU of built indexes keyed by (workspace, version). Building a newer version drops the older ones
 * of the same workspace at once, so a republish never leaves a stale index behind; an older version asked
 * for late (another instance still serving it) is built but never evicts a newer one.
 */
export function createContentIndexCache(options: { maxSites?: number } = {}): ContentIndexCache {
  const cache = new LRUCache<string, ContentIndex>({ max: options.maxSites ?? 64 });
  const keyOf = (workspaceId: string, version: number) => `${workspaceId}@${version}`;

  function versionsOf(workspaceId: string): number[] {
    const versions: number[] = [];
    for (const index of cache.values()) if (index.workspaceId === workspaceId) versions.push(index.version);
    return versions.sort((a, b) => a - b);
  }

  return {
    get(site) {
      const key = keyOf(site.workspaceId, site.version);
      const cached = cache.get(key);
      if (cached) return cached;
      const built = buildContentIndex(site);
      for (const version of versionsOf(site.workspaceId)) {
        if (version < site.version) cache.delete(keyOf(site.workspaceId, version));
      }
      cache.set(key, built);
      return built;
    },
    cachedVersions: versionsOf,
  };
}
