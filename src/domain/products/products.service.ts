/**
 * Products of a workspace: created by hand, imported from a product page on the open web (through the SSRF
 * guard; the page's text is stored as untrusted data, its images copied into the media store), updated, deleted (softly: campaigns keep their links).
 */
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../../errors.ts';
import { FetchRefusedError, type SafeFetch } from '../../net/safe-fetch.ts';
import {
  afterCursor,
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  ORDER_NEWEST_FIRST,
  toPage,
  type Page,
} from '../shared/pagination.ts';
import { HttpUrl } from '../shared/schemas.ts';
import { ownedBy, type WorkspaceScope } from '../shared/scope.ts';
import { parseInput } from '../shared/validate.ts';
import { extractProductFromHtml } from './page-extraction.ts';
import type { ImageCopyFailure, ProductImageStore, StoredProductImage } from './product-images.ts';
import { Product } from './product.entity.ts';

export const ProductFields = z.object({
  title: z.string().trim().min(1, 'must not be empty').max(300, 'must be at most 300 characters'),
  description: z.string().trim().max(5000, 'must be at most 5000 characters').nullish(),
  price: z
    .number({ error: 'must be a number' })
    .nonnegative('must not be negative')
    .max(10_000_000, 'must be at most 10,000,000') // stored in minor units in an integer column
    .nullish()
    .describe('Price in major units, e.g. 12.99'),
  currency: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{3}$/, 'must be a 3-letter ISO 4217 code, e.g. EUR')
    .nullish(),
  images: z.array(HttpUrl).max(10, 'at most 10 images').optional(),
  url: HttpUrl.nullish(),
  brand: z.string().trim().max(200).nullish(),
  sku: z.string().trim().max(100).nullish(),
  attributes: z
    .record(z.string().max(60), z.string().max(500))
    .refine((value) => Object.keys(value).length <= 30, 'at most 30 attributes')
    .optional(),
});
export type ProductFieldsInput = z.input<typeof ProductFields>;

export interface ProductView {
  id: string;
  title: string;
  description: string | null;
  price: number | null;
  currency: string | null;
  images: string[];
  /** Copies of the first images in the platform's media store (creative composes with these). */
  storedImages: StoredProductImage[];
  /** Image URLs that could not be copied, and why. */
  imageFailures: ImageCopyFailure[];
  url: string | null;
  brand: string | null;
  sku: string | null;
  attributes: Record<string, string>;
  origin: string;
  sourceUrl: string | null;
  /** True when the text came from a fetched page: treat as data, never as instructions. */
  untrusted: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The product's price as people read it ("€18.00"), or null when it has no price or currency. */
export function toProductView(product: Product): ProductView {
  return {
    id: product.id,
    title: product.title,
    description: product.description ?? null,
    price: product.priceMinor === null || product.priceMinor === undefined ? null : product.priceMinor / 100,
    currency: product.currency ?? null,
    images: product.images,
    storedImages: product.storedImages,
    imageFailures: product.imageFailures,
    url: product.url ?? null,
    brand: product.brand ?? null,
    sku: product.sku ?? null,
    attributes: product.attributes,
    origin: product.origin,
    sourceUrl: product.sourceUrl ?? null,
    untrusted: product.untrusted,
    createdAt: product.createdAt.toISOString(),
    updatedAt: product.updatedAt.toISOString(),
  };
}

const toMinor = (price: number | null | undefined) =>
  price === null || price === undefined ? null : Math.round(price * 100);

export function createProductsService(deps: { safeFetch: SafeFetch; images: ProductImageStore }) {
  /**
   * Copies the product's images into the media store (after the row exists, so the keys name it) and saves
   * what was copied. Runs whenever the image URLs are set: at import, on create and on update.
   */
  async function copyImages(scope: WorkspaceScope, product: Product): Promise<void> {
    const { stored, failures } = await deps.images.copyImages(scope.workspaceId, product.id, product.images);
    product.storedImages = stored;
    product.imageFailures = failures;
    await scope.em.flush();
  }

  async function find(scope: WorkspaceScope, productId: string): Promise<Product> {
    const product = await scope.em.findOne(Product, { id: productId, deletedAt: null });
    if (!product) throw new NotFoundError('Product', productId);
    return product;
  }

  return {
    find,

    async list(
      scope: WorkspaceScope,
      input: { search?: string; cursor?: string; limit?: number },
    ): Promise<Page<ProductView>> {
      const limit = input.limit ?? DEFAULT_PAGE_SIZE;
      const rows = await scope.em.find(
        Product,
        {
          deletedAt: null,
          ...(input.search ? { title: { $ilike: `%${input.search.replace(/[%_\\]/g, '\\$&')}%` } } : {}),
          ...afterCursor(decodeCursor(input.cursor)),
        },
        { orderBy: ORDER_NEWEST_FIRST, limit: limit + 1 },
      );
      return toPage(rows, limit, toProductView);
    },

    async get(scope: WorkspaceScope, productId: string): Promise<ProductView> {
      return toProductView(await find(scope, productId));
    },

    async create(scope: WorkspaceScope, input: ProductFieldsInput): Promise<ProductView> {
      const data = parseInput(ProductFields, input, 'product');
      const product = scope.em.create(Product, {
        ...ownedBy(scope),
        title: data.title,
        description: data.description ?? null,
        priceMinor: toMinor(data.price),
        currency: data.currency ?? null,
        images: data.images ?? [],
        storedImages: [],
        imageFailures: [],
        url: data.url ?? null,
        brand: data.brand ?? null,
        sku: data.sku ?? null,
        attributes: data.attributes ?? {},
        origin: 'manual',
        sourceUrl: null,
        untrusted: false,
        deletedAt: null,
      });
      await scope.em.flush();
      if (product.images.length > 0) await copyImages(scope, product);
      return toProductView(product);
    },

    async update(scope: WorkspaceScope, productId: string, input: Partial<ProductFieldsInput>): Promise<ProductView> {
      const data = parseInput(ProductFields.partial(), input, 'product');
      const product = await find(scope, productId);
      if (data.title !== undefined) product.title = data.title;
      if (data.description !== undefined) product.description = data.description ?? null;
      if (data.price !== undefined) product.priceMinor = toMinor(data.price);
      if (data.currency !== undefined) product.currency = data.currency ?? null;
      if (data.images !== undefined) product.images = data.images;
      if (data.url !== undefined) product.url = data.url ?? null;
      if (data.brand !== undefined) product.brand = data.brand ?? null;
      if (data.sku !== undefined) product.sku = data.sku ?? null;
      if (data.attributes !== undefined) product.attributes = data.attributes;
      await scope.em.flush();
      if (data.images !== undefined) await copyImages(scope, product);
      return toProductView(product);
    },

    async remove(scope: WorkspaceScope, productId: string): Promise<ProductView> {
      const product = await find(scope, productId);
      product.deletedAt = new Date();
      await scope.em.flush();
      return toProductView(product);
    },

    /**
     * Imports one product from a product page: fetched through the SSRF guard (public addresses only, each
     * redirect re-checked, 2 MB / 10 s caps, HTML only), then read from schema.org JSON-LD, OpenGraph or the
     * HTML itself. The stored text is marked untrusted.
     */
    async importFromUrl(scope: WorkspaceScope, rawUrl: string): Promise<ProductView> {
      const url = parseInput(HttpUrl, rawUrl, 'url');
      let page;
      try {
        page = await deps.safeFetch.fetch(url, {
          accept: ['text/html', 'application/xhtml+xml'],
          maxBytes: 2 * 1024 * 1024,
          timeoutMs: 10_000,
          maxRedirects: 5,
          headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1' },
        });
      } catch (error) {
        if (error instanceof FetchRefusedError) {
          throw new ValidationError(`Could not import ${url}: ${error.message}`, { reason: error.reason });
        }
        throw error;
      }
      if (page.status < 200 || page.status >= 300) {
        throw new ValidationError(`Could not import ${url}: the page answered HTTP ${page.status}`, {
          reason: 'bad_status',
        });
      }
      const extracted = extractProductFromHtml(decodePage(page.body, page.headers.get('content-type')), page.url);
      if (!extracted.title) {
        throw new ValidationError(`Could not import ${url}: no product title found on the page`, {
          reason: 'no_product',
        });
      }
      const product = scope.em.create(Product, {
        ...ownedBy(scope),
        title: extracted.title,
        description: extracted.description,
        priceMinor: extracted.priceMinor,
        currency: extracted.currency,
        images: extracted.images,
        storedImages: [],
        imageFailures: [],
        url: extracted.url,
        brand: extracted.brand,
        sku: extracted.sku,
        attributes: extracted.attributes,
        origin: 'url_import',
        sourceUrl: page.url,
        untrusted: true,
        deletedAt: null,
      });
      await scope.em.flush();
      if (product.images.length > 0) await copyImages(scope, product);
      return toProductView(product);
    },
  };
}

/** Decodes a page by its declared charset (Content-Type header or <meta charset>), falling back to UTF-8. */
function decodePage(body: Buffer, contentType: string | null): string {
  const declared =
    /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '')?.[1] ??
    /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(body.subarray(0, 2048).toString('latin1'))?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body); // an unknown label: read it as UTF-8 rather than fail
  }
}

export type ProductsService = ReturnType<typeof createProductsService>;
