/**
 * schema.org nodes for the pages' JSON-LD (reference §8.3). Nodes carry stable `@id`s (`<origin>/#organization`,
 * `<product page>#product`) so the graphs of different pages describe the same things. schema.org has no
 * campaign type: a campaign page is a `WebPage` about its products, each a `Product` with its `Offer`.
 */
import type { PublicProduct } from '../../../domain/publishing/site-snapshot.ts';
import { sitePaths } from '../site-model.ts';
import type { JsonLdNode } from './content.ts';
import {
  campaignBlurb,
  surfaceSummary,
  type SiteIndex,
  type SnapshotCampaign,
  type SurfacePage,
} from './site-index.ts';
import { absoluteUrl, isoTime, safeUrl, schemaPrice } from './text.ts';

/** Drops empty members (null, '', []) so nodes only state what is known. */
function compact(node: Record<string, unknown>): JsonLdNode {
  const out: JsonLdNode = {};
  for (const [key, value] of Object.entries(node)) {
    if (value === null || value === undefined || value === '') continue;
    if (Array.isArray(value) && value.length === 0) continue;
    out[key] = value;
  }
  return out;
}

const organizationId = (index: SiteIndex) => `${index.origin}/#organization`;
const websiteId = (index: SiteIndex) => `${index.origin}/#website`;
export const productPageUrl = (index: SiteIndex, productId: string) =>
  absoluteUrl(index.origin, sitePaths.product(productId));
const productId = (index: SiteIndex, id: string) => `${productPageUrl(index, id)}#product`;

function httpUrls(urls: readonly string[]): string[] {
  return urls.map((url) => safeUrl(url)).filter((url): url is string => url !== null && /^https?:/i.test(url));
}

/** The product's images that are safe to link, as given (absolute, or relative like the HTML's `<img>`). */
export function productImages(product: PublicProduct): string[] {
  return product.images
    .map((url) => safeUrl(url))
    .filter((url): url is string => url !== null && !/^mailto:/i.test(url));
}

export function organizationNode(index: SiteIndex): JsonLdNode {
  const { profile, brandbook } = index.site.snapshot.brand;
  const website = safeUrl(profile.website);
  return compact({
    '@type': 'Organization',
    '@id': organizationId(index),
    name: index.brandName,
    url: absoluteUrl(index.origin, sitePaths.home),
    logo: safeUrl(brandbook.logoUrl),
    description: profile.description ?? profile.tagline,
    slogan: profile.tagline,
    email: profile.contactEmail,
    sameAs: httpUrls([...(website ? [website] : []), ...profile.sameAs]),
  });
}

export function websiteNode(index: SiteIndex): JsonLdNode {
  const { profile } = index.site.snapshot.brand;
  return compact({
    '@type': 'WebSite',
    '@id': websiteId(index),
    url: absoluteUrl(index.origin, sitePaths.home),
    name: index.brandName,
    description: profile.tagline ?? profile.description,
    publisher: { '@id': organizationId(index) },
  });
}

export function webPageNode(
  index: SiteIndex,
  fields: { path: string; name: string; description?: string | null; type?: string; [key: string]: unknown },
): JsonLdNode {
  const { path, type, ...rest } = fields;
  const url = absoluteUrl(index.origin, path);
  return compact({
    '@type': type ?? 'WebPage',
    '@id': url,
    url,
    isPartOf: { '@id': websiteId(index) },
    publisher: { '@id': organizationId(index) },
    ...rest,
  });
}

/** A product with its offer; `validity` adds the campaign's dates when the offer is shown on a campaign page. */
export function productNode(
  index: SiteIndex,
  product: PublicProduct,
  validity: { validFrom: string | null; validThrough: string | null } | null = null,
): JsonLdNode {
  const url = productPageUrl(index, product.id);
  const price = schemaPrice(product);
  const offer = price
    ? compact({
        '@type': 'Offer',
        price,
        priceCurrency: product.currency,
        url,
        validFrom: validity?.validFrom ? isoTime(validity.validFrom) : null,
        validThrough: validity?.validThrough ? isoTime(validity.validThrough) : null,
      })
    : null;
  return compact({
    '@type': 'Product',
    '@id': productId(index, product.id),
    name: product.title,
    description: product.description,
    url,
    image: productImages(product),
    sku: product.sku,
    brand: { '@type': 'Brand', name: product.brand ?? index.brandName },
    additionalProperty: Object.entries(product.attributes ?? {}).map(([name, value]) => ({
      '@type': 'PropertyValue',
      name,
      value,
    })),
    offers: offer,
  });
}

export function campaignGraph(index: SiteIndex, campaign: SnapshotCampaign, lastModified: string): JsonLdNode[] {
  const validity = { validFrom: campaign.startsAt, validThrough: campaign.endsAt };
  const products = index.productsByCampaign.get(campaign.id) ?? [];
  return [
    webPageNode(index, {
      path: sitePaths.campaign(campaign.slug),
      name: campaign.name,
      description: campaignBlurb(index, campaign),
      datePublished: campaign.publishedAt ? isoTime(campaign.publishedAt) : null,
      dateModified: lastModified,
      about: products.map((product) => ({ '@id': productId(index, product.id) })),
    }),
    ...products.map((product) => productNode(index, product, validity)),
  ];
}

export function productGraph(index: SiteIndex, product: PublicProduct): JsonLdNode[] {
  return [
    webPageNode(index, {
      path: sitePaths.product(product.id),
      name: product.title,
      description: product.description,
      mainEntity: { '@id': productId(index, product.id) },
    }),
    productNode(index, product),
  ];
}

export function listPageGraph(
  index: SiteIndex,
  path: string,
  name: string,
  items: { path: string; name: string }[],
): JsonLdNode[] {
  return [
    webPageNode(index, {
      type: 'CollectionPage',
      path,
      name,
      mainEntity: {
        '@type': 'ItemList',
        numberOfItems: items.length,
        itemListElement: items.map((item, position) => ({
          '@type': 'ListItem',
          position: position + 1,
          url: absoluteUrl(index.origin, item.path),
          name: item.name,
        })),
      },
    }),
  ];
}

export function surfaceGraph(index: SiteIndex, page: SurfacePage): JsonLdNode[] {
  return [webPageNode(index, { path: page.path, name: page.title, description: surfaceSummary(page) })];
}

export function homeGraph(index: SiteIndex): JsonLdNode[] {
  return [organizationNode(index), websiteNode(index)];
}
