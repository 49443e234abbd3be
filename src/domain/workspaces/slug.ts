/** Workspace slugs name brand hosts (`<slug>.<BRAND_ROOT_DOMAIN>`), so they follow DNS label rules. */

/** Labels that must never become brand hosts: they read as platform hosts to people and to crawlers. */
export const RESERVED_SLUGS = new Set([
  'www',
  'app',
  'api',
  'auth',
  'admin',
  'mail',
  'static',
  'assets',
  'cdn',
  'status',
  'docs',
  'help',
  'support',
  'login',
  'oauth',
  'mcp',
  'dashboard',
  'platform',
  'root',
  'system',
  'internal',
]);

export function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
  return base.length >= 2 ? base : `workspace${base ? `-${base}` : ''}`;
}
