/**
 * Host names the single Koa application serves, and how a request's host maps to a site. Requests are
 * dispatched by hostname (ports are ignored, so one process serves every host locally and behind a proxy).
 */
import type { Config } from '../config.ts';

export type Site =
  { kind: 'root' } | { kind: 'platform' } | { kind: 'auth' } | { kind: 'brand'; slug: string } | { kind: 'unknown' };

export function hostnameOf(url: string): string {
  return new URL(url).hostname.toLowerCase();
}

export function createSiteResolver(config: Config): (hostname: string) => Site {
  const root = hostnameOf(config.urls.base);
  const platform = hostnameOf(config.urls.platform);
  const auth = hostnameOf(config.urls.auth);
  const brandSuffix = `.${config.urls.brandRootDomain}`;
  return (hostname) => {
    const host = hostname.toLowerCase();
    if (host === platform) return { kind: 'platform' };
    if (host === auth) return { kind: 'auth' };
    if (host === root) return { kind: 'root' };
    if (host.endsWith(brandSuffix)) {
      const slug = host.slice(0, -brandSuffix.length);
      if (/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(slug)) return { kind: 'brand', slug };
    }
    return { kind: 'unknown' };
  };
}

/** The public URL of a workspace's brand site: the root site's scheme and port, the brand's subdomain. */
export function brandSiteUrl(config: Config, slug: string): string {
  const base = new URL(config.urls.base);
  return `${base.protocol}//${slug}.${config.urls.brandRootDomain}${base.port ? `:${base.port}` : ''}`;
}
