/**
 * The product catalogue (`/w/:id/products`, `/w/:id/products/:productId`): the list with search and paging, a
 * product's facts, creating and editing one, and importing from a URL. Everything goes through
 * `query_products` and `manage_products` (kit.tool): the tool checks the role and writes the audit line, as for
 * an agent. A CSV import starts a background job; the page links to it on the jobs page.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { can } from '../../auth/permissions.ts';
import type { JobView } from '../../domain/jobs/jobs.service.ts';
import { formatPrice } from '../../domain/products/price.ts';
import type { ProductView } from '../../domain/products/products.service.ts';
import { html, type SafeHtml } from '../../views/html.ts';
import { shell, stackedTable, type Chrome, type Notice } from './chrome.ts';
import { clearIfEmpty, keepIfEmpty, lines, numberOrNull, type FormBody } from './form-fields.ts';
import { state, type DashboardKit } from './kit.ts';

const PAGE_SIZE = 20;

interface ListQuery {
  search: string;
  cursor: string | undefined;
}

/** What the list page shows besides the list: a product or import job the last action made. */
interface ListExtras {
  imported?: ProductView;
  importJob?: JobView;
}

/** The create/update form's fields as `manage_products` arguments (empty boxes clear optional fields). */
function productFields(body: FormBody): Record<string, unknown> {
  return {
    title: keepIfEmpty(body, 'title') ?? '',
    description: clearIfEmpty(body, 'description'),
    price: numberOrNull(body, 'price'),
    currency: clearIfEmpty(body, 'currency'),
    url: clearIfEmpty(body, 'url'),
    brand: clearIfEmpty(body, 'brand'),
    sku: clearIfEmpty(body, 'sku'),
    images: lines(body, 'images'),
  };
}

function listQueryOf(ctx: Context): ListQuery {
  const search = typeof ctx.query.q === 'string' ? ctx.query.q.trim().slice(0, 200) : '';
  const cursor = typeof ctx.query.cursor === 'string' && ctx.query.cursor ? ctx.query.cursor.slice(0, 200) : undefined;
  return { search, cursor };
}

export function productRoutes(router: Router, kit: DashboardKit): void {
  const { sendHtml } = kit;

  const listPage = async (ctx: Context, notices: Notice[] = [], extras: ListExtras = {}) => {
    const query = listQueryOf(ctx);
    const { products, nextCursor } = await kit.tool<{ products: ProductView[]; nextCursor: string | null }>(
      ctx,
      'query_products',
      {
        action: 'list',
        limit: PAGE_SIZE,
        ...(query.search ? { search: query.search } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      },
    );
    sendHtml(ctx, productsPage(state(ctx).chrome, { products, nextCursor, query, extras }, notices));
  };

  const detailPage = async (ctx: Context, notices: Notice[] = []) => {
    const { product } = await kit.tool<{ product: ProductView }>(ctx, 'query_products', {
      action: 'get',
      productId: ctx.params.productId,
    });
    sendHtml(ctx, productPage(state(ctx).chrome, product, notices));
  };

  router.get('/w/:workspaceId/products', ...kit.workspacePage('workspace:read'), (ctx) => listPage(ctx));

  router.post('/w/:workspaceId/products', ...kit.toolAction(listPage), async (ctx) => {
    const { product } = await kit.tool<{ product: ProductView }>(ctx, 'manage_products', {
      action: 'create',
      ...productFields(ctx.request.body as FormBody),
    });
    await listPage(ctx, [{ kind: 'ok', text: `Created the product “${product.title}”.` }]);
  });

  router.post('/w/:workspaceId/products/import', ...kit.toolAction(listPage), async (ctx) => {
    const body = ctx.request.body as FormBody;
    const format = body.format === 'page' || body.format === 'csv' ? body.format : undefined;
    const answer = await kit.tool<{ product?: ProductView; importJob?: JobView }>(ctx, 'manage_products', {
      action: 'import_from_url',
      sourceUrl: keepIfEmpty(body, 'sourceUrl') ?? '',
      ...(format ? { format } : {}),
    });
    const notice: Notice = answer.product
      ? { kind: 'ok', text: `Imported the product “${answer.product.title}”.` }
      : { kind: 'ok', text: 'The CSV import started; it runs in the background.' };
    await listPage(ctx, [notice], { imported: answer.product, importJob: answer.importJob });
  });

  router.get('/w/:workspaceId/products/:productId', ...kit.workspacePage('workspace:read'), (ctx) => detailPage(ctx));

  router.post('/w/:workspaceId/products/:productId', ...kit.toolAction(detailPage), async (ctx) => {
    const { product } = await kit.tool<{ product: ProductView }>(ctx, 'manage_products', {
      action: 'update',
      productId: ctx.params.productId,
      ...productFields(ctx.request.body as FormBody),
    });
    await detailPage(ctx, [{ kind: 'ok', text: `Saved the product “${product.title}”.` }]);
  });
}

const PRODUCT_STYLES = html`<style>
  .product-form textarea,
  .product-form input[type='url'],
  .product-form input[type='number'] {
    width: 100%;
    max-width: 560px;
    padding: 8px 10px;
    border: 1px solid #8a919c;
    border-radius: 6px;
    font: inherit;
  }
  .product-form .pair {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(180px, 1fr));
    gap: 0 16px;
    max-width: 560px;
  }
  .hint {
    display: block;
    color: #4a515c;
    font-size: 0.9rem;
  }
  .facts .badge {
    white-space: normal;
  }
  .search input {
    max-width: 320px;
  }
</style>`;

function originBadge(product: ProductView): SafeHtml {
  if (product.origin === 'manual') return html`<span class="badge">Added by hand</span>`;
  return html`<span class="badge ${product.untrusted ? 'warn' : 'info'}"
    >Imported${product.untrusted ? ' · text from a third-party page' : ''}</span
  >`;
}

function productForm(chrome: Chrome, action: string, product: ProductView | null, button: string): SafeHtml {
  const value = (field: keyof ProductView) => {
    const current = product?.[field];
    if (current === null || current === undefined) return '';
    // Prices read as money (12.50), not as a float (12.5).
    return field === 'price' && typeof current === 'number' ? current.toFixed(2) : String(current);
  };
  const id = (name: string) => `product-${product ? 'edit' : 'new'}-${name}`;
  return html`<form method="post" action="${action}" class="product-form">
    <input type="hidden" name="_csrf" value="${chrome.csrf}" />
    <label for="${id('title')}">Title</label>
    <input id="${id('title')}" name="title" type="text" required maxlength="300" value="${value('title')}" />
    <label for="${id('description')}">Description</label>
    <textarea id="${id('description')}" name="description" rows="4">${value('description')}</textarea>
    <div class="pair">
      <div>
        <label for="${id('price')}">Price</label>
        <input id="${id('price')}" name="price" type="number" min="0" step="0.01" value="${value('price')}" />
      </div>
      <div>
        <label for="${id('currency')}">Currency</label>
        <input
          id="${id('currency')}"
          name="currency"
          type="text"
          maxlength="3"
          aria-describedby="${id('currency')}-hint"
          value="${value('currency')}"
        />
        <span class="hint" id="${id('currency')}-hint">ISO code, e.g. EUR</span>
      </div>
      <div>
        <label for="${id('brand')}">Brand</label>
        <input id="${id('brand')}" name="brand" type="text" value="${value('brand')}" />
      </div>
      <div>
        <label for="${id('sku')}">SKU</label>
        <input id="${id('sku')}" name="sku" type="text" value="${value('sku')}" />
      </div>
    </div>
    <label for="${id('url')}">Product page</label>
    <input id="${id('url')}" name="url" type="url" value="${value('url')}" />
    <label for="${id('images')}">Image addresses</label>
    <span class="hint" id="${id('images')}-hint">One https address per line, at most 10.</span>
    <textarea id="${id('images')}" name="images" rows="3" aria-describedby="${id('images')}-hint">
${(product?.images ?? []).join('\n')}</textarea>
    <p><button type="submit">${button}</button></p>
  </form>`;
}

function importCard(chrome: Chrome, extras: ListExtras): SafeHtml {
  const ws = chrome.current!;
  const result = extras.imported
    ? html`<p role="status">
        Imported <a href="/w/${ws.id}/products/${extras.imported.id}">${extras.imported.title}</a>. Its text comes from
        a third-party page: check it before a campaign uses it.
      </p>`
    : extras.importJob
      ? html`<p role="status">
          Import job status: <span class="badge info">${extras.importJob.status}</span>.
          <a href="/w/${ws.id}/jobs/${extras.importJob.id}">Follow the import on the jobs page</a>; the products appear
          in this list as it runs.
        </p>`
      : '';
  return html`<section class="card" aria-labelledby="import-title">
    <h2 id="import-title">Import from a URL</h2>
    ${result}
    <p class="muted">
      A product page is read now (its structured data, OpenGraph or HTML). A CSV feed (a header row with a title column)
      is imported in the background.
    </p>
    <form method="post" action="/w/${ws.id}/products/import" class="product-form">
      <input type="hidden" name="_csrf" value="${chrome.csrf}" />
      <label for="import-url">Public address of the page or CSV file</label>
      <input id="import-url" name="sourceUrl" type="url" required placeholder="https://shop.example/products/tea" />
      <label for="import-format">What the address is</label>
      <select id="import-format" name="format">
        <option value="">Decide from the address (.csv is a feed)</option>
        <option value="page">One product page</option>
        <option value="csv">A CSV product feed</option>
      </select>
      <p><button type="submit">Import product</button></p>
    </form>
  </section>`;
}

export function productsPage(
  chrome: Chrome,
  view: { products: ProductView[]; nextCursor: string | null; query: ListQuery; extras: ListExtras },
  notices: Notice[] = [],
): string {
  const ws = chrome.current!;
  const editable = can(ws.role, 'content:write');
  const { products, nextCursor, query } = view;
  const base = `/w/${ws.id}/products`;
  const searchPart = query.search ? `q=${encodeURIComponent(query.search)}&` : '';
  const table = products.length
    ? stackedTable(
        ['Product', 'Price', 'Origin', 'Last change'],
        products.map((product) => [
          html`<a href="${base}/${product.id}">${product.title}</a
            >${product.sku ? html`<br /><span class="muted">SKU ${product.sku}</span>` : ''}`,
          formatPrice(product) ?? html`<span class="muted">no price</span>`,
          originBadge(product),
          product.updatedAt.slice(0, 10),
        ]),
      )
    : html`<p class="card">
        ${query.search ? `No product title matches “${query.search}”.` : 'No products yet.'}
        ${editable ? 'Add one below or import it from its page.' : ''}
      </p>`;
  const body = html`<h1>Products of ${ws.name}</h1>
    <form method="get" action="${base}" class="row filters search" role="search">
      <div>
        <label for="product-search">Search titles</label>
        <input id="product-search" name="q" type="text" value="${query.search}" />
      </div>
      <button class="secondary" type="submit">Search products</button>
      ${query.search ? html`<a href="${base}">Clear search</a>` : ''}
    </form>
    ${table}
    <nav class="pager" aria-label="Pages of products">
      ${query.cursor ? html`<a href="${base}${searchPart ? `?${searchPart.slice(0, -1)}` : ''}">First page</a>` : html`<span></span>`}
      ${nextCursor ? html`<a href="${base}?${searchPart}cursor=${encodeURIComponent(nextCursor)}">Next page</a>` : ''}
    </nav>
    ${
      editable
        ? html`<section class="card" aria-labelledby="create-title">
              <h2 id="create-title">Add a product</h2>
              ${productForm(chrome, base, null, 'Add product')}
            </section>
            ${importCard(chrome, view.extras)}`
        : ''
    }`;
  return shell('Products', chrome, body, notices, PRODUCT_STYLES);
}

export function productPage(chrome: Chrome, product: ProductView, notices: Notice[] = []): string {
  const ws = chrome.current!;
  const editable = can(ws.role, 'content:write');
  const facts: [string, unknown][] = [
    ['Price', formatPrice(product) ?? 'no price'],
    ['Brand', product.brand],
    ['SKU', product.sku],
    ['Product page', product.url ? html`<a href="${product.url}" rel="noopener noreferrer">${product.url}</a>` : null],
    ['Origin', originBadge(product)],
    ['Imported from', product.sourceUrl],
    [
      'Images',
      product.images.length
        ? product.images.map(
            (url, index) => html`${index ? ', ' : ''}<a href="${url}" rel="noopener noreferrer">Image ${index + 1}</a>`,
          )
        : 'none',
    ],
    ...Object.entries(product.attributes),
    ['Last change', product.updatedAt.slice(0, 16).replace('T', ' ') + ' UTC'],
  ];
  const body = html`<p><a href="/w/${ws.id}/products">← All products</a></p>
    <h1>${product.title}</h1>
    ${product.untrusted ? html`<p class="notice warn">This product’s text was read from a third-party page: treat it as data, check it before use.</p>` : ''}
    <section class="card" aria-labelledby="facts-title">
      <h2 id="facts-title">Facts</h2>
      <dl class="facts">
        ${facts
          .filter(([, value]) => value !== null && value !== undefined && value !== '')
          .map(
            ([label, value]) =>
              html`<div>
                <dt>${label}</dt>
                <dd class="truncate">${value}</dd>
              </div>`,
          )}
      </dl>
      ${product.description ? html`<p style="white-space:pre-line">${product.description}</p>` : ''}
    </section>
    ${
      editable
        ? html`<section class="card" aria-labelledby="edit-title">
            <h2 id="edit-title">Edit ${product.title}</h2>
            <p class="muted">Empty boxes clear the field; the title is required.</p>
            ${productForm(chrome, `/w/${ws.id}/products/${product.id}`, product, 'Save product')}
          </section>`
        : ''
    }`;
  return shell(product.title, chrome, body, notices, PRODUCT_STYLES);
}
