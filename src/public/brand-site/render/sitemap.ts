/**
 * `/sitemap.xml` (sitemaps.org protocol 0.9, reference §8.2): every page with its absolute `<loc>` and its
 * Last-Modified as `<lastmod>`. A file holds at most 50,000 URLs; a bigger site gets a `<sitemapindex>` at
 * `/sitemap.xml` pointing at numbered files (`/sitemap-1.xml`, …).
 */
import type { RenderedFile, RenderedPage } from '../site-model.ts';
import { absoluteUrl, latestTime } from './text.ts';

export const SITEMAP_PATH = '/sitemap.xml';
export const SITEMAP_CONTENT_TYPE = 'application/xml; charset=utf-8';
export const SITEMAP_MAX_URLS = 50_000;

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', "'": '&apos;', '"': '&quot;', '<': '&lt;', '>': '&gt;' };

export function escapeXml(value: string): string {
  return value.replace(/[&'"<>]/g, (char) => XML_ESCAPES[char]!);
}

const XML_HEADER = '<?xml version="1.0" encoding="UTF-8"?>\n';
const NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';

type SitemapPage = Pick<RenderedPage, 'path' | 'lastModified'>;

function urlset(origin: string, pages: readonly SitemapPage[]): string {
  const entries = pages.map(
    (page) =>
      `  <url><loc>${escapeXml(absoluteUrl(origin, page.path))}</loc><lastmod>${escapeXml(page.lastModified)}</lastmod></url>\n`,
  );
  return `${XML_HEADER}<urlset xmlns="${NAMESPACE}">\n${entries.join('')}</urlset>\n`;
}

export function renderSitemapFiles(
  origin: string,
  pages: readonly SitemapPage[],
  publishedAt: string,
  maxUrls = SITEMAP_MAX_URLS,
): RenderedFile[] {
  const file = (path: string, body: string, lastModified: string): RenderedFile => ({
    path,
    contentType: SITEMAP_CONTENT_TYPE,
    body,
    lastModified,
  });
  const newest = (chunk: readonly SitemapPage[]) =>
    latestTime(
      publishedAt,
      chunk.map((page) => page.lastModified),
    );
  if (pages.length <= maxUrls) return [file(SITEMAP_PATH, urlset(origin, pages), newest(pages))];
  const chunks: { path: string; pages: readonly SitemapPage[] }[] = [];
  for (let start = 0; start < pages.length; start += maxUrls) {
    chunks.push({ path: `/sitemap-${chunks.length + 1}.xml`, pages: pages.slice(start, start + maxUrls) });
  }
  const entries = chunks.map(
    (chunk) =>
      `  <sitemap><loc>${escapeXml(`${origin}${chunk.path}`)}</loc><lastmod>${newest(chunk.pages)}</lastmod></sitemap>\n`,
  );
  return [
    file(
      SITEMAP_PATH,
      `${XML_HEADER}<sitemapindex xmlns="${NAMESPACE}">\n${entries.join('')}</sitemapindex>\n`,
      newest(pages),
    ),
    ...chunks.map((chunk) => file(chunk.path, urlset(origin, chunk.pages), newest(chunk.pages))),
  ];
}
