/**
 * Creative composes with the copy of the product's image stored at import, and fetches from the open web only
 * for products that have no stored copy (imported before copies were kept) or whose copy is gone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { createBuiltinCopyEngine } from '../../src/domain/creative/text/builtin-copy-engine.ts';
import { createStudio } from '../../src/domain/creative/studio.ts';
import { createLocalMediaStore, type MediaStore } from '../../src/domain/media/media-store.ts';
import type { ProductView } from '../../src/domain/products/products.service.ts';
import { productView } from '../support/views.ts';
import { createSafeFetch } from '../../src/net/safe-fetch.ts';

function png(shade: number): Buffer {
  const image = new PNG({ width: 8, height: 8 });
  image.data.fill(shade);
  return PNG.sync.write(image);
}

const STORED = png(10);
const ON_THE_WEB = png(240);
const KEY = 'ws_1/products/prd_1/abc.png';

let dir: string;
let media: MediaStore;
/** The shop's server, on loopback, reached through the real SSRF guard (which lets `localhost` through here). */
const fetched: string[] = [];
let shop: http.Server;
let shopUrl: string;
const safeFetch = createSafeFetch({ allowPrivateHosts: ['localhost'] });

function product(storedImages: ProductView['storedImages']): ProductView {
  return productView({
    id: 'prd_1',
    title: 'Kettle',
    images: [`${shopUrl}/kettle.png`],
    storedImages,
    untrusted: true,
  });
}

const stored = () => ({
  key: KEY,
  sourceUrl: `${shopUrl}/kettle.png`,
  mimeType: 'image/png' as const,
  width: 8,
  height: 8,
  bytes: STORED.length,
});

beforeAll(async () => {
  shop = http.createServer((req, res) => {
    fetched.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(ON_THE_WEB);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}`;
  dir = await mkdtemp(path.join(os.tmpdir(), 'studio-images-'));
  media = createLocalMediaStore({ dir, publicBaseUrl: 'http://app.localhost' });
  await media.put(KEY, STORED, 'image/png');
});

afterAll(async () => {
  await safeFetch.close();
  shop.closeAllConnections();
  await new Promise<void>((resolve) => shop.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  fetched.length = 0;
});

const studio = () => createStudio({ copy: createBuiltinCopyEngine(), images: null, media, safeFetch });

test('a product with a stored copy is composed with that copy, and nothing is fetched', async () => {
  const image = await studio().fetchProductImage(product([stored()]));
  expect(image).toEqual({ bytes: STORED, mimeType: 'image/png' });
  expect(fetched).toEqual([]);
});

test('a product without a stored copy falls back to its image URL, through the guarded fetcher', async () => {
  const image = await studio().fetchProductImage(product([]));
  expect(image).toEqual({ bytes: ON_THE_WEB, mimeType: 'image/png' });
  expect(fetched).toEqual(['/kettle.png']);
});

test('a stored copy that is gone from the store falls back to the URL too', async () => {
  const image = await studio().fetchProductImage(product([{ ...stored(), key: 'ws_1/products/prd_1/gone.png' }]));
  expect(image?.bytes.equals(ON_THE_WEB)).toBe(true);
  expect(fetched).toHaveLength(1);
});
