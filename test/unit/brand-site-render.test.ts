/**
 * The brand-site renderer, from a publication to stored pages and files (no database): JSON-LD, sitemap and
 * robots parsed by real parsers, the markdown twin stating the same facts as the HTML once a variant is
 * spliced in, untrusted product text never becoming markup, llms.txt structure, determinism, every slot
 * having a fill (over generated sites too), and speed on a site with a thousand campaigns.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { parse } from 'parse5';
import robotsParserModule from 'robots-parser';
import { DEFAULT_BRANDBOOK, DEFAULT_CONCIERGE } from '../../src/domain/brand/brand-defaults.ts';
import type { VariantView } from '../../src/domain/campaigns/campaigns.service.ts';
import type { ProductView } from '../../src/domain/products/products.service.ts';
import { publicSnapshot, type SiteSnapshot } from '../../src/domain/publishing/site-snapshot.ts';
import { chooseVariant } from '../../src/public/brand-site/assemble.ts';
import { colord, extend } from 'colord';
import a11yPlugin from 'colord/plugins/a11y';
import {
  AGENT_FILE_PATHS,
  EMPTY_TEXT,
  renderAskPage,
  renderBrandSite,
  renderGonePage,
  renderNotFoundPage,
} from '../../src/public/brand-site/render/index.ts';
import type { PublishedSite, RenderedPage, RenderedSite, SlotFill } from '../../src/public/brand-site/site-model.ts';
import { WELL_KNOWN_PATHS } from '../../src/public/well-known/index.ts';
import { productView } from '../support/views.ts';

extend([a11yPlugin]);

// robots-parser is CommonJS with an ESM-style `export default` in its types: at run time the default import
// is the function itself, which is what its types call `.default`.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

const ORIGIN = 'https://acme.brands.example.com';
const PUBLISHED_AT = '2026-11-22T08:00:00.000Z';
const HOSTILE = '<script>alert(1)</script> & "quotes"';

type Campaign = SiteSnapshot['campaigns'][number];
type Surface = SiteSnapshot['surfaces'][number];

function product(overrides: Partial<ProductView> & { id: string; title: string }): ProductView {
  return productView({ createdAt: '2026-10-01T00:00:00.000Z', updatedAt: '2026-10-01T00:00:00.000Z', ...overrides });
}

function variant(overrides: Partial<VariantView> & { id: string; campaignId: string }): VariantView {
  return {
    name: 'Variant',
    headline: 'Headline',
    body: 'Body',
    callToAction: 'Shop now',
    ctaUrl: null,
    imageRefs: [],
    channelFields: {},
    status: 'active',
    weight: 50,
    isControl: false,
    source: 'manual',
    version: 1,
    createdAt: '2026-10-02T00:00:00.000Z',
    updatedAt: '2026-10-02T00:00:00.000Z',
    ...overrides,
  };
}

function campaign(overrides: Partial<Campaign> & { id: string; name: string; slug: string }): Campaign {
  return {
    summary: null,
    startsAt: null,
    endsAt: null,
    publishedAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
    variants: [],
    products: [],
    ...overrides,
  };
}

const hostileProduct = product({
  id: 'prd_hostile',
  title: HOSTILE,
  description: 'Imported from a shop page.\n\n# not a heading\n[click](javascript:alert(1))',
  price: 18,
  currency: 'EUR',
  images: ['https://cdn.example.com/roast.png', 'javascript:alert(1)'],
  url: 'https://shop.example.com/roast',
  brand: 'Acme Roasters',
  sku: 'AR-250',
  attributes: { weight: '250 g', origin: 'Colombia' },
  origin: 'import',
  untrusted: true,
  updatedAt: '2026-11-10T00:00:00.000Z',
});
const beans = product({ id: 'prd_beans', title: 'House beans 1 kg', price: 1200, currency: 'JPY' });

const autumn = campaign({
  id: 'cmp_autumn',
  name: 'Autumn roast launch',
  slug: 'autumn-roast',
  summary: 'Launch the autumn roast: 20% off through November.',
  startsAt: '2026-11-01T00:00:00.000Z',
  endsAt: '2026-11-30T00:00:00.000Z',
  updatedAt: '2026-11-05T00:00:00.000Z',
  // Deliberately out of id order: fills list variants by id.
  variants: [
    variant({
      id: 'var_b',
      campaignId: 'cmp_autumn',
      headline: 'Taste autumn',
      body: 'Caramel and plum.\nRoasted this week.',
      callToAction: 'Order the roast',
      ctaUrl: 'https://shop.example.com/autumn?utm=(x)',
      imageRefs: [{ url: 'https://media.example.com/autumn.png', alt: 'A bag of autumn roast' }],
      weight: 30,
      updatedAt: '2026-11-12T00:00:00.000Z',
    }),
    variant({
      id: 'var_a',
      campaignId: 'cmp_autumn',
      headline: 'Autumn in a cup',
      body: 'Our darkest roast yet, *limited*.',
      callToAction: 'See the offer',
      weight: 70,
    }),
  ],
  products: [hostileProduct, beans],
});
const winter = campaign({
  id: 'cmp_winter',
  name: 'Winter blend',
  slug: 'winter-blend',
  publishedAt: '2026-10-20T00:00:00.000Z',
  updatedAt: '2026-10-20T00:00:00.000Z',
  variants: [
    variant({
      id: 'var_w',
      campaignId: 'cmp_winter',
      headline: 'Warm up',
      body: 'Spiced winter blend.',
      callToAction: 'Try it',
    }),
  ],
  products: [beans],
});

function zone(id: string, key: string, deployments: Surface['zones'][number]['deployments'] = []) {
  return { id, key, kind: 'banner', deployments };
}

const deployment = (id: string, campaignId: string, priority: number, startsAt: string | null = null) => ({
  id,
  campaignId,
  priority,
  startsAt,
  endsAt: null,
});

function fixtureSnapshot(): SiteSnapshot {
  return {
    workspace: { id: 'ws_01', name: 'Acme', slug: 'acme' },
    brand: {
      brandbook: {
        ...DEFAULT_BRANDBOOK,
        colors: { ...DEFAULT_BRANDBOOK.colors, primary: '#123456' },
        fonts: { heading: '"Playfair Display", serif</style><script>x()</script>', body: 'Inter, sans-serif' },
        logoUrl: 'https://cdn.example.com/logo.png',
      },
      profile: {
        displayName: 'Acme Coffee',
        tagline: 'Roasted in small batches',
        description: 'Specialty coffee roaster\nfrom Lisbon.',
        website: 'https://acme.example',
        contactEmail: 'hello@acme.example',
        sameAs: ['https://www.instagram.com/acme'],
      },
      concierge: { ...DEFAULT_CONCIERGE, faq: [{ question: 'Do you ship abroad?', answer: 'Yes, across the EU.' }] },
      updatedAt: '2026-11-20T10:00:00.000Z',
    },
    // Copies: tests change the snapshot they get.
    campaigns: structuredClone([autumn, winter]),
    surfaces: [
      {
        id: 'srf_home',
        kind: 'brand_page',
        path: '/',
        zones: [zone('zon_home_hero', 'hero', [deployment('dep_h1', 'cmp_winter', 1)])],
      },
      {
        id: 'srf_summer',
        kind: 'brand_page',
        path: '/summer/',
        zones: [
          zone('zon_hero', 'hero', [
            deployment('dep_1', 'cmp_winter', 1),
            deployment('dep_2', 'cmp_autumn', 5),
            // Opens after this publication: not shown yet.
            deployment('dep_3', 'cmp_autumn', 9, '2027-01-01T00:00:00.000Z'),
          ]),
          zone('zon_side', 'sidebar'),
        ],
      },
      {
        id: 'srf_shadow',
        kind: 'brand_page',
        path: '/campaigns',
        zones: [],
      },
      {
        id: 'srf_email',
        kind: 'email',
        path: null,
        zones: [zone('zon_mail', 'top', [deployment('dep_m', 'cmp_autumn', 1)])],
      },
    ],
  };
}

function fixture(snapshot: SiteSnapshot = fixtureSnapshot()): PublishedSite {
  return { workspaceId: 'ws_01', slug: 'acme', version: 4, publishedAt: PUBLISHED_AT, origin: ORIGIN, snapshot };
}

/**
 * Joins a page's parts with the chosen variants' fragments, as the brand host does (it also wraps each HTML
 * fragment in the beacon element, which is not the renderer's business).
 */
function assemble(
  page: RenderedPage,
  chooseVariant: (campaignId: string, fill: SlotFill) => string,
): { html: string; markdown: string } {
  const join = (parts: RenderedPage['html'], format: 'html' | 'markdown') =>
    parts
      .map((part) => {
        if (typeof part === 'string') return part;
        const fill = page.fills[part.campaignId];
        if (!fill) throw new Error(`No fill for ${part.campaignId} on ${page.path}`);
        const fragment = fill.byVariant[chooseVariant(part.campaignId, fill)];
        if (!fragment) throw new Error(`No fragment chosen for ${part.campaignId} on ${page.path}`);
        return fragment[format];
      })
      .join('');
  return { html: join(page.html, 'html'), markdown: join(page.markdown, 'markdown') };
}

const firstVariant = (_campaignId: string, fill: SlotFill) => fill.variants[0]!.id;

/**
 * `root` behind proxies that count every property read, at any depth: a measure of the work done on an input
 * that does not depend on the machine.
 */
function countingReads<T extends object>(root: T): { value: T; reads: () => number } {
  let reads = 0;
  const proxies = new WeakMap<object, object>();
  const wrap = (target: object): object => {
    let proxy = proxies.get(target);
    if (!proxy) {
      proxy = new Proxy(target, {
        get(object, key, receiver) {
          reads += 1;
          const value: unknown = Reflect.get(object, key, receiver);
          return typeof value === 'object' && value !== null ? wrap(value) : value;
        },
      });
      proxies.set(target, proxy);
    }
    return proxy;
  };
  return { value: wrap(root) as T, reads: () => reads };
}

function pageAt(site: RenderedSite, path: string): RenderedPage {
  const page = site.pages.find((candidate) => candidate.path === path);
  if (!page) throw new Error(`No page at ${path}; pages: ${site.pages.map((p) => p.path).join(', ')}`);
  return page;
}

function fileAt(site: RenderedSite, path: string) {
  const file = site.files.find((candidate) => candidate.path === path);
  if (!file) throw new Error(`No file at ${path}`);
  return file;
}

interface HtmlNode {
  nodeName: string;
  value?: string;
  attrs?: { name: string; value: string }[];
  childNodes?: HtmlNode[];
  content?: HtmlNode;
}

function walk(node: HtmlNode, visit: (node: HtmlNode) => void): void {
  visit(node);
  for (const child of node.childNodes ?? []) walk(child, visit);
}

function elements(document: HtmlNode, name: string): HtmlNode[] {
  const found: HtmlNode[] = [];
  walk(document, (node) => {
    if (node.nodeName === name) found.push(node);
  });
  return found;
}

const attr = (node: HtmlNode, name: string) => node.attrs?.find((a) => a.name === name)?.value;

function textOf(node: HtmlNode): string {
  let text = '';
  walk(node, (child) => {
    if (child.nodeName === '#text') text += child.value ?? '';
  });
  return text;
}

/** What a reader of the HTML sees: the body's text (entities decoded), whitespace collapsed. */
function visibleText(html: string): string {
  const document = parse(html) as unknown as HtmlNode;
  const body = elements(document, 'body')[0]!;
  return textOf(body).replace(/\s+/g, ' ');
}

/** What a reader of the markdown sees: backslash escapes removed, whitespace collapsed. */
function markdownText(markdown: string): string {
  return markdown.replace(/\\([!-/:-@[-`{-~])/g, '$1').replace(/\s+/g, ' ');
}

function jsonLdGraph(html: string): Record<string, any>[] {
  const document = parse(html) as unknown as HtmlNode;
  const scripts = elements(document, 'script').filter((s) => attr(s, 'type') === 'application/ld+json');
  expect(scripts).toHaveLength(1);
  const data = JSON.parse(textOf(scripts[0]!));
  expect(data['@context']).toBe('https://schema.org');
  expect(Array.isArray(data['@graph'])).toBe(true);
  return data['@graph'];
}

const ofType = (graph: Record<string, any>[], type: string) => graph.filter((node) => node['@type'] === type);

describe('renderBrandSite', () => {
  const site = renderBrandSite(fixture());

  it('renders home, indexes, campaign, product and brand pages, and skips a page that would shadow the host', () => {
    expect(site.pages.map((page) => page.path)).toEqual([
      '/',
      '/campaigns',
      '/campaigns/autumn-roast',
      '/campaigns/winter-blend',
      '/products',
      '/products/prd_hostile',
      '/products/prd_beans',
      '/summer',
    ]);
    expect(site.files.map((file) => [file.path, file.contentType])).toEqual([
      ['/llms.txt', 'text/plain; charset=utf-8'],
      ['/sitemap.xml', 'application/xml; charset=utf-8'],
      ['/robots.txt', 'text/plain; charset=utf-8'],
    ]);
    expect(pageAt(site, '/campaigns/autumn-roast').title).toBe('Autumn roast launch');
  });

  it('dates campaign pages by their newest change and everything else by the publication', () => {
    expect(pageAt(site, '/campaigns/autumn-roast').lastModified).toBe('2026-11-20T10:00:00.000Z'); // brand update
    const noBrandUpdate = fixtureSnapshot();
    noBrandUpdate.brand.updatedAt = null;
    const rendered = renderBrandSite(fixture(noBrandUpdate));
    expect(pageAt(rendered, '/campaigns/autumn-roast').lastModified).toBe('2026-11-12T00:00:00.000Z'); // variant
    expect(pageAt(rendered, '/campaigns/winter-blend').lastModified).toBe('2026-10-20T00:00:00.000Z');
    for (const path of ['/', '/campaigns', '/products', '/products/prd_beans', '/summer']) {
      expect(pageAt(rendered, path).lastModified).toBe(PUBLISHED_AT);
    }
    for (const file of rendered.files) expect(file.lastModified).toBe(PUBLISHED_AT);
  });

  it('writes complete HTML documents with canonical and markdown alternate links, brand styles and the beacon', () => {
    for (const page of site.pages) {
      const { html } = assemble(page, firstVariant);
      const document = parse(html) as unknown as HtmlNode;
      const url = page.path === '/' ? `${ORIGIN}/` : `${ORIGIN}${page.path}`;
      expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
      expect(attr(elements(document, 'html')[0]!, 'lang')).toBe('en');
      const metas = elements(document, 'meta');
      expect(metas.some((meta) => attr(meta, 'charset') === 'utf-8')).toBe(true);
      expect(metas.some((meta) => attr(meta, 'name') === 'viewport')).toBe(true);
      expect(textOf(elements(document, 'title')[0]!)).toContain(page.title);
      const links = elements(document, 'link');
      expect(links.find((link) => attr(link, 'rel') === 'canonical')?.attrs).toContainEqual({
        name: 'href',
        value: url,
      });
      const alternate = links.find((link) => attr(link, 'rel') === 'alternate');
      expect(attr(alternate!, 'type')).toBe('text/markdown');
      expect(attr(alternate!, 'href')).toBe(url);
      const scripts = elements(document, 'script');
      expect(scripts.map((script) => [attr(script, 'type') ?? null, attr(script, 'src') ?? null])).toEqual([
        ['application/ld+json', null],
        [null, '/_cp/beacon.js'],
        [null, '/_cp/ask.js'],
      ]);
      for (const script of scripts.slice(1)) expect(script.attrs!.some((a) => a.name === 'defer')).toBe(true);
      const css = textOf(elements(document, 'style')[0]!);
      // The policy allows this stylesheet by its hash, and scripts, requests and forms of this origin only.
      const policy = attr(
        metas.find((meta) => attr(meta, 'http-equiv') === 'Content-Security-Policy')!,
        'content',
      )!;
      expect(policy).toContain(`style-src 'sha256-${createHash('sha256').update(css).digest('base64')}'`);
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("form-action 'self'");
      expect(policy).toContain("default-src 'none'");
      expect(css).toContain('--primary:#123456');
      // The heading font had markup in it: the default heading font stands in.
      expect(css).toContain('h1,h2,h3{font-family:Georgia, serif;');
      expect(css).toContain('font-family:Inter, sans-serif;');
      expect(css).not.toContain('<');
      // Nothing is fetched from elsewhere except images.
      expect(html).not.toMatch(/<link[^>]+rel="stylesheet"/);
      const nav = elements(document, 'nav')[0]!;
      expect(elements(nav, 'a').map((a) => attr(a, 'href'))).toEqual(['/', '/campaigns', '/products', '#ask']);
      // Every page ends with the ask box: a plain form that posts the question to /ask.
      const form = elements(document, 'form').find((f) => attr(f, 'action') === '/ask')!;
      expect(attr(form, 'method')).toBe('post');
      expect(elements(form, 'input').map((input) => attr(input, 'name'))).toEqual(['query']);
      expect(html).toContain('aria-live="polite"');
    }
  });

  it('gives every page one JSON-LD graph: Organization and WebSite on home, Product with Offer on campaign and product pages', () => {
    const home = jsonLdGraph(assemble(pageAt(site, '/'), firstVariant).html);
    const [organization] = ofType(home, 'Organization');
    expect(organization).toMatchObject({
      name: 'Acme Coffee',
      url: `${ORIGIN}/`,
      logo: 'https://cdn.example.com/logo.png',
      description: 'Specialty coffee roaster\nfrom Lisbon.',
      email: 'hello@acme.example',
      sameAs: ['https://acme.example', 'https://www.instagram.com/acme'],
    });
    expect(ofType(home, 'WebSite')[0]).toMatchObject({ url: `${ORIGIN}/`, publisher: { '@id': organization!['@id'] } });

    const campaignGraph = jsonLdGraph(assemble(pageAt(site, '/campaigns/autumn-roast'), firstVariant).html);
    expect(ofType(campaignGraph, 'WebPage')[0]).toMatchObject({
      url: `${ORIGIN}/campaigns/autumn-roast`,
      name: 'Autumn roast launch',
      datePublished: '2026-11-01T00:00:00.000Z',
    });
    const products = ofType(campaignGraph, 'Product');
    expect(products.map((p) => p.name)).toEqual([HOSTILE, 'House beans 1 kg']);
    expect(products[0]).toMatchObject({
      url: `${ORIGIN}/products/prd_hostile`,
      brand: { '@type': 'Brand', name: 'Acme Roasters' },
      sku: 'AR-250',
      image: ['https://cdn.example.com/roast.png'],
      offers: {
        '@type': 'Offer',
        price: '18.00',
        priceCurrency: 'EUR',
        url: `${ORIGIN}/products/prd_hostile`,
        validFrom: '2026-11-01T00:00:00.000Z',
        validThrough: '2026-11-30T00:00:00.000Z',
      },
    });
    expect(products[1]!.offers).toMatchObject({ price: '1200', priceCurrency: 'JPY' });
    expect(products[1]!.brand).toEqual({ '@type': 'Brand', name: 'Acme Coffee' });

    const productGraph = jsonLdGraph(assemble(pageAt(site, '/products/prd_beans'), firstVariant).html);
    const [beansNode] = ofType(productGraph, 'Product');
    expect(beansNode).toMatchObject({
      name: 'House beans 1 kg',
      offers: { '@type': 'Offer', price: '1200', priceCurrency: 'JPY', url: `${ORIGIN}/products/prd_beans` },
    });
    expect(ofType(productGraph, 'WebPage')[0]!.mainEntity).toEqual({ '@id': beansNode!['@id'] });

    const index = jsonLdGraph(assemble(pageAt(site, '/campaigns'), firstVariant).html);
    expect(ofType(index, 'CollectionPage')[0]!.mainEntity.itemListElement.map((item: any) => item.url)).toEqual([
      `${ORIGIN}/campaigns/autumn-roast`,
      `${ORIGIN}/campaigns/winter-blend`,
    ]);
    for (const page of site.pages) expect(jsonLdGraph(assemble(page, firstVariant).html).length).toBeGreaterThan(0);
  });

  it('lists every page in the sitemap with absolute locations and its last modification', () => {
    const sitemap = fileAt(site, '/sitemap.xml');
    const parsed = new XMLParser({ isArray: (name) => name === 'url' }).parse(sitemap.body);
    expect(sitemap.body.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
    expect(sitemap.body).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    const urls = parsed.urlset.url as { loc: string; lastmod: string }[];
    expect(urls.map((url) => url.loc)).toEqual(
      site.pages.map((page) => (page.path === '/' ? `${ORIGIN}/` : `${ORIGIN}${page.path}`)),
    );
    expect(urls.map((url) => url.lastmod)).toEqual(site.pages.map((page) => page.lastModified));
  });

  it('lets crawlers read everything but the beacon endpoints, and announces the sitemap', () => {
    const robotsUrl = `${ORIGIN}/robots.txt`;
    const robots = robotsParser(robotsUrl, fileAt(site, '/robots.txt').body);
    expect(robots.isAllowed(`${ORIGIN}/`, 'AnyBot')).toBe(true);
    expect(robots.isAllowed(`${ORIGIN}/campaigns/autumn-roast`, 'AnyBot')).toBe(true);
    expect(robots.isDisallowed(`${ORIGIN}/_cp/events`, 'AnyBot')).toBe(true);
    expect(robots.isDisallowed(`${ORIGIN}/_cp/beacon.js`, 'AnyBot')).toBe(true);
    expect(robots.getSitemaps()).toEqual([`${ORIGIN}/sitemap.xml`]);
  });

  it('states the same facts in the HTML and in the markdown twin of a campaign page, for each variant', () => {
    const page = pageAt(site, '/campaigns/autumn-roast');
    const fill = page.fills.cmp_autumn!;
    expect(fill.variants).toEqual([
      { id: 'var_a', weight: 70 },
      { id: 'var_b', weight: 30 },
    ]);
    const expectations: Record<string, { headline: string; body: string[]; cta: string; href: string }> = {
      var_a: {
        headline: 'Autumn in a cup',
        body: ['Our darkest roast yet, *limited*.'],
        cta: 'See the offer',
        href: `${ORIGIN}/campaigns/autumn-roast`,
      },
      var_b: {
        headline: 'Taste autumn',
        body: ['Caramel and plum.', 'Roasted this week.'],
        cta: 'Order the roast',
        href: 'https://shop.example.com/autumn?utm=(x)',
      },
    };
    for (const [variantId, expected] of Object.entries(expectations)) {
      const { html, markdown } = assemble(page, () => variantId);
      const text = visibleText(html);
      const md = markdownText(markdown);
      const facts = [
        'Autumn roast launch',
        'Launch the autumn roast: 20% off through November.',
        '2026-11-01',
        '2026-11-30',
        expected.headline,
        ...expected.body,
        expected.cta,
        HOSTILE,
        '€18.00',
        'House beans 1 kg',
        '¥1,200',
      ];
      for (const fact of facts) {
        expect(text).toContain(fact);
        expect(md).toContain(fact);
      }
      // The call to action: a link carrying data-cp-cta in HTML, an absolute link in markdown.
      const document = parse(html) as unknown as HtmlNode;
      const cta = elements(document, 'a').find((a) => a.attrs?.some((x) => x.name === 'data-cp-cta'));
      expect(textOf(cta!)).toBe(expected.cta);
      expect(new URL(attr(cta!, 'href')!, `${ORIGIN}/`).href).toBe(new URL(expected.href).href);
      expect(markdown).toContain(`[${expected.cta}](${expected.href.replace('(', '%28').replace(')', '%29')})`);
      // Product links: to the product pages, absolute in markdown.
      expect(markdown).toContain(`](${ORIGIN}/products/prd_beans): ¥1,200`);
      expect(markdown.startsWith('# Autumn roast launch\n')).toBe(true);
      expect(markdown.endsWith('\n')).toBe(true);
      expect(markdown).not.toContain('\n\n\n');
    }
    // Only variant B has an image; the markdown shows it too. The campaign page's HTML heads the page with the
    // product photo instead (the variant is text beside it); in a zone the variant shows its own picture.
    expect(fill.byVariant.var_b!.markdown).toContain('![A bag of autumn roast](https://media.example.com/autumn.png)');
    expect(fill.byVariant.var_b!.html).not.toContain('<img');
    expect(assemble(page, firstVariant).html).toContain(
      '<div class="head-media"><img src="https://cdn.example.com/roast.png" alt="&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;" fetchpriority="high">',
    );
    expect(pageAt(site, '/summer').fills.cmp_autumn!.byVariant.var_b!.html).toContain(
      '<img class="cp-image" src="https://media.example.com/autumn.png" alt="A bag of autumn roast"',
    );
  });

  it('states the same facts in both forms of a product page, and keeps imported links harmless', () => {
    const page = pageAt(site, '/products/prd_hostile');
    const { html, markdown } = assemble(page, firstVariant);
    const text = visibleText(html);
    const md = markdownText(markdown);
    for (const fact of [
      HOSTILE,
      '€18.00',
      'Acme Roasters',
      'AR-250',
      '250 g',
      'Colombia',
      'Autumn roast launch',
      'https://shop.example.com/roast',
    ]) {
      expect(text).toContain(fact);
      expect(md).toContain(fact);
    }
    expect(html).toContain('<img src="https://cdn.example.com/roast.png"');
    expect(html).not.toContain('javascript:alert(1)"');
    expect(markdown).not.toMatch(/(?<!\\)\]\(javascript:/);
    expect(html).toMatch(/<a href="https:\/\/shop\.example\.com\/roast" rel="nofollow ugc noopener">/);
    // Markdown syntax in the imported description stays text.
    expect(markdown).toContain('\\# not a heading');
    expect(markdown).toContain('\\[click\\](javascript:alert(1))');
  });

  it('never lets untrusted text become markup', () => {
    for (const page of site.pages) {
      for (const variantChoice of [firstVariant, (_: string, fill: SlotFill) => fill.variants.at(-1)!.id]) {
        const { html, markdown } = assemble(page, variantChoice);
        expect(html).not.toContain('<script>alert(1)');
        expect(html).not.toContain('x()</script>');
        expect(markdown).not.toContain('<script>');
        const document = parse(html) as unknown as HtmlNode;
        expect(elements(document, 'script')).toHaveLength(3);
        if (html.includes('alert(1)')) {
          expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;');
        }
      }
    }
    expect(assemble(pageAt(site, '/products/prd_hostile'), firstVariant).html).toContain('\\u003cscript>alert(1)');
  });

  it('places brand-page zones in order, highest priority first, with an empty state for an empty zone', () => {
    const summer = pageAt(site, '/summer');
    // Titled by its path: the surface's name is an internal label.
    expect(summer.title).toBe('Summer');
    const slots = summer.html.filter((part) => typeof part !== 'string');
    expect(slots).toEqual([
      { campaignId: 'cmp_autumn', zoneId: 'zon_hero', surfaceId: 'srf_summer' },
      { campaignId: 'cmp_winter', zoneId: 'zon_hero', surfaceId: 'srf_summer' },
    ]);
    expect(summer.markdown.filter((part) => typeof part !== 'string')).toEqual(slots);
    expect(Object.keys(summer.fills).sort()).toEqual(['cmp_autumn', 'cmp_winter']);
    const { html, markdown } = assemble(summer, firstVariant);
    const text = visibleText(html);
    // Each placed campaign is headed by its own name; the zone's key anchors the section.
    expect(text.indexOf('Autumn roast launch')).toBeLessThan(text.indexOf('Autumn in a cup'));
    expect(text.indexOf('Autumn in a cup')).toBeLessThan(text.indexOf('Winter blend'));
    expect(text.indexOf('Winter blend')).toBeLessThan(text.indexOf('Warm up'));
    expect(text.indexOf('Warm up')).toBeLessThan(text.indexOf(EMPTY_TEXT.zone));
    expect(markdown).toContain('## Autumn roast launch\n\n### Autumn in a cup\n');
    expect(markdown).toMatch(new RegExp(`Try it.*\\n\\n${EMPTY_TEXT.zone}\\n`, 's'));
    expect(html).toContain('<h2 id="zone-hero">Autumn roast launch</h2>');
    // Zone names are the team's labels for slots, never headings.
    for (const body of [html, markdown]) expect(body).not.toMatch(/Hero|Sidebar/);

    const home = pageAt(site, '/');
    // The hero (HTML only) shows the lead campaign no home zone places; the zones follow, as in the twin.
    expect(home.html.filter((part) => typeof part !== 'string')).toEqual([
      { campaignId: 'cmp_autumn', zoneId: null, surfaceId: null },
      { campaignId: 'cmp_winter', zoneId: 'zon_home_hero', surfaceId: 'srf_home' },
    ]);
    expect(home.markdown.filter((part) => typeof part !== 'string')).toEqual([
      { campaignId: 'cmp_winter', zoneId: 'zon_home_hero', surfaceId: 'srf_home' },
    ]);
    const homeText = markdownText(assemble(home, firstVariant).markdown);
    for (const fact of [
      'Acme Coffee',
      'Roasted in small batches',
      'Winter blend',
      'Warm up',
      'Autumn roast launch',
      'Do you ship abroad?',
      'hello@acme.example',
    ]) {
      expect(homeText).toContain(fact);
    }
    // The campaign page's slot stands for no zone.
    expect(pageAt(site, '/campaigns/winter-blend').html.filter((part) => typeof part !== 'string')).toEqual([
      { campaignId: 'cmp_winter', zoneId: null, surfaceId: null },
    ]);
  });

  it('shows a campaign without an active variant as a fixed teaser instead of an empty slot', () => {
    const snapshot = fixtureSnapshot();
    snapshot.campaigns[0]!.variants = snapshot.campaigns[0]!.variants.map((v) => ({ ...v, status: 'paused' }));
    const rendered = renderBrandSite(fixture(snapshot));
    const summer = pageAt(rendered, '/summer');
    expect(summer.html.filter((part) => typeof part !== 'string')).toEqual([
      { campaignId: 'cmp_winter', zoneId: 'zon_hero', surfaceId: 'srf_summer' },
    ]);
    const { html, markdown } = assemble(summer, firstVariant);
    expect(visibleText(html)).toContain('See Autumn roast launch');
    expect(markdown).toContain(`[See Autumn roast launch](${ORIGIN}/campaigns/autumn-roast)`);
    const campaignPage = pageAt(rendered, '/campaigns/autumn-roast');
    expect(campaignPage.html.some((part) => typeof part !== 'string')).toBe(false);
    expect(campaignPage.fills).toEqual({});
  });

  it('writes llms.txt with the H1, the summary and link sections of absolute URLs', () => {
    const llms = fileAt(site, '/llms.txt').body;
    const lines = llms.split('\n');
    expect(lines[0]).toBe('# Acme Coffee');
    expect(lines[1]).toBe('');
    expect(lines[2]).toMatch(/^> Roasted in small batches\. .*`Accept: text\/markdown`\.$/);
    const headings = lines.filter((line) => line.startsWith('#'));
    expect(headings).toEqual([
      '# Acme Coffee',
      '## Campaigns',
      '## Products',
      '## Pages',
      '## Agent resources',
      '## Optional',
    ]);
    const links = [...llms.matchAll(/\]\(([^)]+)\)/g)].map((match) => match[1]!);
    for (const link of links) expect(link.startsWith(`${ORIGIN}/`)).toBe(true);
    expect(links).toEqual(
      expect.arrayContaining([
        `${ORIGIN}/campaigns/autumn-roast`,
        `${ORIGIN}/campaigns/winter-blend`,
        `${ORIGIN}/products/prd_hostile`,
        `${ORIGIN}/products/prd_beans`,
        `${ORIGIN}/summer`,
        `${ORIGIN}/ask`,
        `${ORIGIN}/.well-known/agent-skills/index.json`,
        `${ORIGIN}/.well-known/agent-card.json`,
        `${ORIGIN}/auth.md`,
        `${ORIGIN}/.well-known/mcp/server-card.json`,
        `${ORIGIN}/sitemap.xml`,
      ]),
    );
    expect(llms).toContain('{"query": "..."}');
    expect(llms).toContain('- [House beans 1 kg](https://acme.brands.example.com/products/prd_beans): ¥1,200');
    expect(llms).toContain('\\<script\\>alert(1)\\</script\\>');
    expect(llms.endsWith('\n')).toBe(true);
    // The links to the well-known files are the files the well-known renderer writes.
    expect(AGENT_FILE_PATHS).toEqual(WELL_KNOWN_PATHS);
  });

  it('is deterministic: the same publication renders to identical output', () => {
    expect(renderBrandSite(fixture())).toEqual(site);
    expect(JSON.stringify(renderBrandSite(structuredClone(fixture())))).toBe(JSON.stringify(site));
  });

  it('renders a site with a thousand campaigns with work linear in its size', () => {
    /** The fixture with `count` campaigns (three variants, two of `count / 5` products each), all on /summer. */
    const siteWith = (count: number) => {
      const snapshot = fixtureSnapshot();
      const products = Array.from({ length: count / 5 }, (_, i) =>
        product({ id: `prd_${String(i).padStart(4, '0')}`, title: `Product ${i}`, price: i + 0.5, currency: 'EUR' }),
      );
      snapshot.campaigns = Array.from({ length: count }, (_, i) => {
        const id = `cmp_${String(i).padStart(4, '0')}`;
        return campaign({
          id,
          name: `Campaign ${i}`,
          slug: `campaign-${i}`,
          summary: `Summary ${i}`,
          variants: [0, 1, 2].map((n) =>
            variant({ id: `var_${i}_${n}`, campaignId: id, headline: `Headline ${i}.${n}` }),
          ),
          products: [products[i % products.length]!, products[(i * 7) % products.length]!],
        });
      });
      snapshot.surfaces[1]!.zones[0]!.deployments = snapshot.campaigns.map((c, i) =>
        deployment(`dep_${i}`, c.id, i % 10),
      );
      return fixture(snapshot);
    };
    const render = (count: number) => {
      const input = countingReads(siteWith(count));
      return { rendered: renderBrandSite(input.value), reads: input.reads() };
    };
    const small = render(100);
    const large = render(1000);
    expect(large.rendered.pages).toHaveLength(1 + 1 + 1000 + 1 + 200 + 1);
    expect(pageAt(large.rendered, '/summer').html.filter((part) => typeof part !== 'string')).toHaveLength(1000);
    // Work measured as reads of the publication, not as time (which the machine's other tenants decide): ten
    // times the site, about ten times the reads, since everything is looked up through indexes built once.
    // Measured: 10.2 times. Sorting (n log n) stays well under 15; looking up each deployment's campaign by
    // scanning the campaigns instead of the index makes it 35.
    expect(large.reads).toBeLessThan(15 * small.reads);
  });
});

describe('brand pages for people', () => {
  const site = renderBrandSite(fixture());
  const documentOf = (html: string) => parse(html) as unknown as HtmlNode;
  const byClass = (root: HtmlNode, name: string) =>
    (() => {
      const found: HtmlNode[] = [];
      walk(root, (node) => {
        if ((attr(node, 'class') ?? '').split(' ').includes(name)) found.push(node);
      });
      return found;
    })();

  it('heads the home page with the brand, then a hero of the lead campaign with its product photo', () => {
    const { html } = assemble(pageAt(site, '/'), firstVariant);
    const document = documentOf(html);
    const head = byClass(document, 'page-head')[0]!;
    expect(textOf(elements(head, 'h1')[0]!)).toBe('Acme Coffee');
    expect(textOf(head)).toContain('Roasted in small batches');
    expect(textOf(head)).toContain('Specialty coffee roaster');
    const hero = byClass(document, 'feature')[0]!;
    // The photo is the product's first image; the variant beside it is text: headline, body, call to action.
    expect(elements(hero, 'img').map((img) => attr(img, 'src'))).toEqual(['https://cdn.example.com/roast.png']);
    expect(textOf(byClass(hero, 'eyebrow')[0]!)).toBe('Autumn roast launch');
    expect(textOf(elements(hero, 'h2')[0]!)).toBe('Autumn in a cup');
    expect(byClass(hero, 'cp-cta')).toHaveLength(1);
    // Campaigns and products as cards, each a link to its page.
    const cards = byClass(document, 'card').map((card) => attr(elements(card, 'a')[0]!, 'href'));
    expect(cards).toEqual([
      '/campaigns/autumn-roast',
      '/campaigns/winter-blend',
      '/products/prd_hostile',
      '/products/prd_beans',
    ]);
    // Contact details are in the footer of every page.
    expect(textOf(elements(document, 'footer')[0]!)).toContain('hello@acme.example');
  });

  it('shows a still with its headline drawn in once: the alt text says it, no second headline under it', () => {
    const snapshot = fixtureSnapshot();
    const winterVariant = snapshot.campaigns[1]!.variants[0]!;
    winterVariant.imageRefs = [{ url: 'https://media.example.com/warm.png', alt: 'Warm up — House beans 1 kg' }];
    const rendered = renderBrandSite(fixture(snapshot));
    // In a zone the still is shown: its alt carries the headline, and the headline is not printed again.
    const zoneFragment = pageAt(rendered, '/summer').fills.cmp_winter!.byVariant.var_w!.html;
    expect(zoneFragment).toContain(
      '<img class="cp-image" src="https://media.example.com/warm.png" alt="Warm up — House beans 1 kg"',
    );
    expect(zoneFragment).not.toContain('cp-headline');
    expect(zoneFragment).toContain('Spiced winter blend.');
    // The campaign page has no product photo (beans have none): the still heads the page, once.
    const { html } = assemble(pageAt(rendered, '/campaigns/winter-blend'), firstVariant);
    expect(html.match(/alt="Warm up — House beans 1 kg"/g)).toHaveLength(1);
    expect(visibleText(html)).not.toContain('Warm up');
    // The twin has no pixels: it keeps the headline as text.
    expect(assemble(pageAt(rendered, '/campaigns/winter-blend'), firstVariant).markdown).toContain('## Warm up');
  });

  it('keeps every text colour readable (WCAG AA) whatever colours the brand book names', () => {
    const snapshot = fixtureSnapshot();
    snapshot.brand.brandbook.colors = {
      primary: '#F5F0A0',
      secondary: '#FFFFFF',
      accent: '#FFE066',
      background: '#FFFFFF',
      text: '#BBBBBB',
    };
    const { html } = assemble(pageAt(renderBrandSite(fixture(snapshot)), '/'), firstVariant);
    const css = textOf(elements(documentOf(html), 'style')[0]!);
    const value = (name: string) => new RegExp(`--${name}:(#[0-9a-f]+)`, 'i').exec(css)![1]!;
    const pairs = [
      ['text', 'background'],
      ['link', 'background'],
      ['text', 'surface'],
      ['link', 'surface'],
      ['muted', 'background'],
      ['on-primary', 'primary'],
      ['on-accent', 'accent'],
    ];
    for (const [fore, back] of pairs) {
      expect({ pair: `${fore} on ${back}`, readable: colord(value(fore!)).contrast(value(back!)) >= 4.5 }).toEqual({
        pair: `${fore} on ${back}`,
        readable: true,
      });
    }
  });

  it('answers a form question as a page: citations as links, follow-ups as buttons that carry the conversation', () => {
    const html = renderAskPage(fixture(), {
      question: 'Do you ship <abroad>?',
      reply: {
        answered: true,
        answer: 'Yes, across the EU. [1]',
        segments: [{ text: 'Yes, across the EU.', source: 1 }],
        sources: [{ url: `${ORIGIN}/`, title: 'Acme Coffee' }],
        suggestions: ['How much is the autumn roast?'],
      },
      problem: null,
      context: { previous: ['Do you ship <abroad>?'], conversationId: 'conv-0123456789' },
    });
    const document = documentOf(html);
    const answer = byClass(document, 'answer')[0]!;
    expect(textOf(answer)).toContain('You asked: Do you ship <abroad>?');
    expect(html).not.toContain('<abroad>');
    const cite = byClass(answer, 'cite')[0]!;
    expect([attr(cite, 'href'), textOf(cite)]).toEqual(['/', '[1]']);
    // A suggestion is a one-button form: it works without JavaScript, and carries the conversation on.
    const suggestion = elements(byClass(answer, 'suggestions')[0]!, 'form')[0]!;
    expect([attr(suggestion, 'method'), attr(suggestion, 'action')]).toEqual(['post', '/ask']);
    const fields = elements(suggestion, 'input').map((input) => [attr(input, 'name'), attr(input, 'value')]);
    expect(fields).toEqual([
      ['query', 'How much is the autumn roast?'],
      ['prev', 'Do you ship <abroad>?'],
      ['conversationId', 'conv-0123456789'],
    ]);
    expect(textOf(elements(suggestion, 'button')[0]!)).toBe('How much is the autumn roast?');
    // The follow-up box carries it too.
    const box = elements(document, 'form').find((form) => attr(form, 'class') === 'ask-form')!;
    expect(elements(box, 'input').map((input) => attr(input, 'name'))).toEqual(['query', 'prev', 'conversationId']);
  });

  it('says "I don\'t know" with the ways to ask a person, and explains an empty question', () => {
    const unknown = renderAskPage(fixture(), {
      question: 'Who won the cup?',
      reply: { answered: false, answer: "I don't know that.", segments: [], sources: [], suggestions: [] },
      problem: null,
      context: { previous: [], conversationId: null },
    });
    const text = visibleText(unknown);
    expect(text).toContain('We don’t know that yet');
    expect(text).toContain("I don't know that.");
    expect(text).toContain('Ask a person instead');
    expect(unknown).toContain('<a href="mailto:hello@acme.example"');
    const empty = renderAskPage(fixture(), {
      question: '',
      reply: null,
      problem: { kind: 'empty' },
      context: { previous: [], conversationId: null },
    });
    expect(visibleText(empty)).toContain(
      'Type your question in the box below and press Ask. For example: “Do you ship abroad?”',
    );
    const limited = renderAskPage(fixture(), {
      question: '',
      reply: null,
      problem: { kind: 'rate_limited', retryAfterSeconds: 12 },
      context: { previous: [], conversationId: null },
    });
    expect(visibleText(limited)).toContain('Please ask again in 12 seconds.');
  });

  it('takes a campaign whose run has ended off the site, and tells a visitor following an old link (410)', () => {
    const snapshot = fixtureSnapshot();
    snapshot.campaigns[1]!.endsAt = '2026-11-21T00:00:00.000Z';
    const published = fixture(snapshot);
    const rendered = renderBrandSite(published);
    expect(rendered.pages.map((page) => page.path)).not.toContain('/campaigns/winter-blend');
    for (const file of rendered.files) expect(file.body).not.toContain('winter-blend');
    // Nor is it placed in a zone any more (the home page's zone held it).
    expect(pageAt(rendered, '/').html.filter((part) => typeof part !== 'string')).toEqual([
      { campaignId: 'cmp_autumn', zoneId: null, surfaceId: null },
    ]);
    const gone = renderGonePage(published, '/campaigns/winter-blend')!;
    const text = visibleText(gone);
    expect(text).toContain('This campaign has ended');
    expect(text).toContain('Winter blend ended on 2026-11-21. Here is what Acme Coffee has on now.');
    expect(text).toContain('Autumn roast launch');
    // A live campaign's path, and a path that was never a campaign's, are not gone.
    expect(renderGonePage(published, '/campaigns/autumn-roast')).toBeNull();
    expect(renderGonePage(published, '/campaigns/never-was')).toBeNull();
  });

  it('has no ask box, link or script when the brand turned its concierge off', () => {
    const snapshot = fixtureSnapshot();
    snapshot.brand.concierge = { ...snapshot.brand.concierge, enabled: false };
    const published = fixture(snapshot);
    for (const html of [
      assemble(pageAt(renderBrandSite(published), '/'), firstVariant).html,
      renderNotFoundPage(published, '/gone'),
    ]) {
      expect(html).not.toContain('/_cp/ask.js');
      expect(html).not.toContain('action="/ask"');
      expect(html).not.toContain('href="#ask"');
    }
  });
});

describe('renderBrandSite over generated sites', () => {
  const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}_${i}`);
  const productIds = ids('prd', 4);
  const campaignIds = ids('cmp', 5);

  const snapshotArbitrary = fc
    .record({
      campaigns: fc.array(
        fc.record({
          index: fc.nat(4),
          variants: fc.array(
            fc.record({ id: fc.stringMatching(/^var_[a-z]{1,3}$/), weight: fc.nat(100), active: fc.boolean() }),
            { maxLength: 3 },
          ),
          products: fc.subarray(productIds),
          name: fc.string({ maxLength: 20 }),
        }),
        { maxLength: 5 },
      ),
      surfaces: fc.array(
        fc.record({
          path: fc.constantFrom('/', '/a', '/a/', '/b', '/campaigns', '/_cp/x', '/ask', '//c', null),
          zones: fc.array(
            fc.array(
              fc.record({ campaign: fc.constantFrom(...campaignIds), priority: fc.integer({ min: -5, max: 5 }) }),
              {
                maxLength: 4,
              },
            ),
            { maxLength: 3 },
          ),
        }),
        { maxLength: 4 },
      ),
    })
    .map(({ campaigns, surfaces }): SiteSnapshot => {
      const snapshot = fixtureSnapshot();
      const seen = new Set<string>();
      snapshot.campaigns = campaigns
        .filter((c) => !seen.has(campaignIds[c.index]!) && seen.add(campaignIds[c.index]!))
        .map((c) => {
          const id = campaignIds[c.index]!;
          const variantIds = new Set<string>();
          return campaign({
            id,
            name: c.name,
            slug: id.replace('_', '-'),
            variants: c.variants
              .filter((v) => !variantIds.has(v.id) && variantIds.add(v.id))
              .map((v) =>
                variant({
                  id: `${id}_${v.id}`,
                  campaignId: id,
                  weight: v.weight,
                  status: v.active ? 'active' : 'paused',
                }),
              ),
            products: c.products.map((p) => product({ id: p, title: `Title ${p}`, price: 1, currency: 'EUR' })),
          });
        });
      snapshot.surfaces = surfaces.map((s, i) => ({
        id: `srf_${i}`,
        kind: 'brand_page',
        path: s.path,
        zones: s.zones.map((deployments, z) =>
          zone(
            `zon_${i}_${z}`,
            `z${z}`,
            deployments.map((d, n) => deployment(`dep_${i}_${z}_${n}`, d.campaign, d.priority)),
          ),
        ),
      }));
      return snapshot;
    });

  it('gives every slot a fill with its active variants in id order, and renders each path once', () => {
    fc.assert(
      fc.property(snapshotArbitrary, (snapshot) => {
        const rendered = renderBrandSite(fixture(snapshot));
        const paths = [...rendered.pages, ...rendered.files].map((doc) => doc.path);
        expect(new Set(paths).size).toBe(paths.length);
        for (const path of paths) expect(path === '/' || !path.endsWith('/')).toBe(true);
        for (const page of rendered.pages) {
          const htmlSlots = page.html.filter((part) => typeof part !== 'string');
          // The home page's hero is the one slot only HTML has (the twin lists that campaign among the others).
          const isHero = (slot: (typeof htmlSlots)[number]) => page.path === '/' && slot.zoneId === null;
          expect(htmlSlots.filter(isHero).length).toBeLessThanOrEqual(1);
          expect(page.markdown.filter((part) => typeof part !== 'string')).toEqual(
            htmlSlots.filter((slot) => !isHero(slot)),
          );
          for (const slot of htmlSlots) {
            const fill = page.fills[slot.campaignId];
            expect(fill).toBeDefined();
            const active = snapshot.campaigns
              .find((c) => c.id === slot.campaignId)!
              .variants.filter((v) => v.status === 'active')
              .map((v) => v.id)
              .sort();
            expect(fill!.variants.map((v) => v.id)).toEqual(active);
            expect(active.length).toBeGreaterThan(0);
            for (const v of fill!.variants) {
              expect(fill!.byVariant[v.id]?.html).toContain('data-cp-cta');
              expect(fill!.byVariant[v.id]?.markdown.endsWith('\n')).toBe(true);
            }
          }
          expect(Object.keys(page.fills).sort()).toEqual([...new Set(htmlSlots.map((s) => s.campaignId))].sort());
          const assembled = assemble(page, firstVariant);
          expect(assembled.markdown.endsWith('\n')).toBe(true);
        }
        expect(renderBrandSite(fixture(snapshot))).toEqual(rendered);
      }),
      { numRuns: 60 },
    );
  });
});

describe('publicSnapshot', () => {
  /**
   * Every object in a value, depth first (arrays looked into, not counted), except a product's `attributes`:
   * a free-form map whose every entry is public by definition.
   */
  const objectsIn = (value: unknown): Record<string, unknown>[] =>
    Array.isArray(value)
      ? value.flatMap(objectsIn)
      : value && typeof value === 'object'
        ? [
            value as Record<string, unknown>,
            ...Object.entries(value).flatMap(([key, child]) => (key === 'attributes' ? [] : objectsIn(child))),
          ]
        : [];

  it('keeps exactly the public fields: anything else on any object is dropped, whatever it is called', () => {
    const clean = publicSnapshot(fixtureSnapshot());
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(), fc.string({ minLength: 1, maxLength: 12 })), { minLength: 1, maxLength: 30 }),
        (extras) => {
          // The same snapshot with internal-looking fields added at random places (objects of any level).
          const polluted = structuredClone(fixtureSnapshot()) as unknown as Record<string, unknown>;
          const targets = objectsIn(polluted);
          extras.forEach(([at, key], i) => {
            const target = targets[at % targets.length]!;
            if (!(key in target) && key !== '__proto__') target[key] = `internal-sentinel-${i}`;
          });
          const projected = publicSnapshot(polluted);
          expect(projected).toEqual(clean);
          expect(JSON.stringify(projected)).not.toContain('internal-sentinel');
        },
      ),
    );
  });

  it('drops the internal fields a campaign, variant, product, surface, zone and brand carry today', () => {
    const json = JSON.stringify(
      publicSnapshot({
        ...fixtureSnapshot(),
        brand: { ...fixtureSnapshot().brand, voice: { tone: 'secret tone' }, brandbook: { rules: ['secret rule'] } },
        campaigns: fixtureSnapshot().campaigns.map((c) => ({ ...c, objective: 'secret objective', brief: {} })),
        surfaces: fixtureSnapshot().surfaces.map((surface) => ({
          ...surface,
          name: 'secret surface',
          description: 'secret description',
          zones: surface.zones.map((zone) => ({ ...zone, name: 'secret zone', constraints: {} })),
        })),
      }),
    );
    expect(json).not.toMatch(/secret|objective|brief|voice|rules|constraints|"name":"secret/);
    // The public summary is public, under either name (`publicSummary` on the campaign view).
    const summarised = publicSnapshot({
      ...fixtureSnapshot(),
      campaigns: [{ ...fixtureSnapshot().campaigns[0]!, summary: undefined, publicSummary: 'For everyone' }],
    });
    expect(summarised.campaigns[0]!.summary).toBe('For everyone');
  });
});

describe('chooseVariant', () => {
  const fragment = { html: '<p>x</p>', markdown: 'x' };
  const fill: SlotFill = {
    variants: [
      { id: 'var_a', weight: 1 },
      { id: 'var_b', weight: 3 },
    ],
    byVariant: { var_a: fragment, var_b: fragment },
  };

  it('is the first 48 bits of sha256(session NUL campaign) over the weights, so visitors keep their variant', () => {
    // Computed independently: a change of hash would move existing visitors to other variants mid-test.
    const chosen: string[] = [];
    for (let i = 0; i < 200; i += 1) {
      const session = `visitor-${i}`;
      const digest = createHash('sha256').update(`${session}\u0000cmp_1`).digest();
      const point = (digest.readUIntBE(0, 6) / 2 ** 48) * 4;
      chosen.push(chooseVariant(session, 'cmp_1', fill)!);
      expect(chosen[i]).toBe(point < 1 ? 'var_a' : 'var_b');
    }
    // Both arms get visitors, roughly by weight (1:3).
    const shareA = chosen.filter((id) => id === 'var_a').length / chosen.length;
    expect(shareA).toBeGreaterThan(0.15);
    expect(shareA).toBeLessThan(0.35);
  });
});
