/**
 * `/robots.txt` (RFC 9309, reference §8.1): everything is crawlable except the brand host's own machinery
 * under `/_cp/` (the beacon script and the event endpoint, which only a page's script should call); the
 * sitemap is announced as an absolute URL. `/ask` stays allowed: agents are told to POST there.
 */
export const ROBOTS_PATH = '/robots.txt';
export const PLATFORM_PREFIX = '/_cp/';

export function renderRobotsTxt(origin: string, sitemapPath: string): string {
  return ['User-agent: *', 'Allow: /', `Disallow: ${PLATFORM_PREFIX}`, '', `Sitemap: ${origin}${sitemapPath}`, ''].join(
    '\n',
  );
}
