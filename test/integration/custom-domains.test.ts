/**
 * Custom domains end to end: the dashboard's forms on the real platform, verification against real protocol
 * servers on loopback, and the brand host serving (or refusing) the custom name.
 *
 * - A tiny authoritative DNS server (UDP on 127.0.0.1, written here with node:dgram: `dns-packet` is not
 *   installed) answers TXT and A queries from a table the tests edit; the platform reaches it through
 *   DNS_RESOLVER_SERVERS, for the TXT proof and for the address of the HTTP check.
 * - An HTTP server on 127.0.0.1 stands for the customers' web servers (by Host header); the platform's HTTP
 *   check reaches it on DOMAIN_VERIFICATION_HTTP_PORT through the SSRF guard, which lets only the test names
 *   (SSRF_ALLOW_PRIVATE_HOSTS) reach loopback.
 * - Custom names end in `.localhost` (the test fetch resolves those to loopback, like browsers), but are
 *   neither the platform's hosts nor under the brand root `sites.localhost`.
 */
import dgram from 'node:dgram';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  normalizeCustomHostname,
  reservedHostsOf,
  type CustomDomainView,
} from '../../src/domain/brand/custom-domains.service.ts';
import { SitePublication } from '../../src/domain/publishing/site-publication.entity.ts';
import type { Role } from '../../src/domain/workspaces/roles.ts';
import { User } from '../../src/domain/workspaces/user.entity.ts';
import { Workspace } from '../../src/domain/workspaces/workspace.entity.ts';
import { NotFoundError } from '../../src/errors.ts';
import { brandSiteUrl } from '../../src/http/hosts.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { seedWorkspace } from '../support/seed.ts';
import { eventually as pollEventually } from '../support/poll.ts';
import { acrossWorkspaces, workspaceScope, actors } from '../../src/domain/shared/scope.ts';

const SHOP = 'shop-linen.localhost'; // verified by DNS
const WWW = 'www-linen.localhost'; // verified by HTTP token file
const WRONG = 'wrong-linen.localhost'; // serves another token
const HOP = 'hop-linen.localhost'; // redirects the token request elsewhere
const TEST_HOSTS = [SHOP, WWW, WRONG, HOP];

// --- a minimal authoritative DNS server -------------------------------------------------------------------

const TYPE_A = 1;
const TYPE_TXT = 16;
/** name → records; a name missing here answers NXDOMAIN, a name without the asked type answers NODATA. */
const zone = new Map<string, { a?: string[]; txt?: string[] }>();
const dnsQueries: { name: string; type: number }[] = [];

function readName(message: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = offset;
  while (message[at]! > 0) {
    const length = message[at]!;
    labels.push(message.subarray(at + 1, at + 1 + length).toString('latin1'));
    at += 1 + length;
  }
  return { name: labels.join('.').toLowerCase(), end: at + 1 };
}

/** One resource record answering the question at offset 12 (a compression pointer to its name). */
function answerRecord(type: number, rdata: Buffer): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0xc00c, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt16BE(1, 4); // IN
  head.writeUInt32BE(5, 6); // TTL
  head.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([head, rdata]);
}

/** TXT rdata: the value as length-prefixed strings of at most 255 bytes. */
function txtData(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length || parts.length === 0; at += 255) {
    const chunk = bytes.subarray(at, at + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat(parts);
}

function dnsAnswer(query: Buffer): Buffer {
  const { name, end } = readName(query, 12);
  const type = query.readUInt16BE(end);
  dnsQueries.push({ name, type });
  const entry = zone.get(name);
  const answers =
    type === TYPE_TXT
      ? (entry?.txt ?? []).map((value) => answerRecord(TYPE_TXT, txtData(value)))
      : type === TYPE_A
        ? (entry?.a ?? []).map((address) => answerRecord(TYPE_A, Buffer.from(address.split('.').map(Number))))
        : [];
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0); // id
  // QR + AA, RD copied, RCODE 3 (NXDOMAIN) for unknown names.
  header.writeUInt16BE(0x8400 | (query.readUInt16BE(2) & 0x0100) | (entry ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, query.subarray(12, end + 4), ...answers]);
}

// --- the customers' web servers ---------------------------------------------------------------------------

/** host → what its token file request gets. */
const tokenFiles = new Map<string, { status: number; body: string; location?: string }>();
const tokenRequests: { host: string; path: string }[] = [];

let dnsServer: dgram.Socket;
let webServer: http.Server;
let platform: TestPlatform;
let owner: Tenant;
let other: Tenant;
let subdomainOrigin: string;

/** A signed-in dashboard person: the session cookie and the session's CSRF token. */
interface Person {
  cookie: string;
  csrf: string;
}

async function signIn(userId: string): Promise<Person> {
  const em = acrossWorkspaces(platform.container.orm.em);
  const user = await em.findOneOrFail(User, { id: userId });
  const { token, session } = await platform.container.services.sessions.create(em, user, {
    userAgent: 'custom-domains-test',
  });
  return { cookie: `cp_session=${token}`, csrf: session.csrfToken };
}

async function dashboard(person: Person, path: string, form?: Record<string, string>) {
  const response = await testFetch(`${platform.urls.platform}${path}`, {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: {
      cookie: person.cookie,
      ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(form ? { body: new URLSearchParams({ _csrf: person.csrf, ...form }).toString() } : {}),
  });
  return { status: response.status, text: await response.text() };
}

/** The page's text without markup, whitespace collapsed (for asserting on what a person reads). */
function readable(page: string): string {
  return page
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');
}

async function domainsOf(tenant: Tenant): Promise<CustomDomainView[]> {
  return platform.container.services.customDomains.list(
    workspaceScope(platform.container.orm.em, tenant.workspaceId, actors.operator),
  );
}

async function domainNamed(tenant: Tenant, hostname: string): Promise<CustomDomainView> {
  const found = (await domainsOf(tenant)).find((domain) => domain.hostname === hostname);
  if (!found) throw new Error(`${hostname} is not a domain of ${tenant.workspaceId}`);
  return found;
}

/** The brand host at a custom name, on the platform's port. */
function brandAt(hostname: string, path = '/') {
  return testFetch(`http://${hostname}:${platform.port}${path}`);
}

const eventually = <T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000) =>
  pollEventually(probe, what, { timeoutMs, intervalMs: 200 });

async function latestOrigin(workspaceId: string): Promise<string | null> {
  const latest = await acrossWorkspaces(platform.container.orm.em).findOne(
    SitePublication,
    { workspace: workspaceId },
    { orderBy: { version: 'desc' } },
  );
  return latest?.origin ?? null;
}

async function member(tenant: Tenant, role: Role): Promise<Person> {
  const { workspaces } = platform.container.services;
  const em = acrossWorkspaces(platform.container.orm.em);
  const email = `${role}-${tenant.workspaceId.slice(-6).toLowerCase()}@example.test`;
  const user = await workspaces.createUser(em, { email, name: `A ${role}`, password: 'a long enough password' });
  await workspaces.setMember(em, tenant.workspaceId, { email, role });
  return signIn(user.id);
}

beforeAll(async () => {
  dnsServer = dgram.createSocket('udp4');
  dnsServer.on('message', (query, peer) => {
    try {
      dnsServer.send(dnsAnswer(query), peer.port, peer.address);
    } catch {
      // A query this little server cannot parse gets no answer (the resolver times out), as with a real one.
    }
  });
  await new Promise<void>((resolve) => dnsServer.bind(0, '127.0.0.1', resolve));

  webServer = http.createServer((request, response) => {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    tokenRequests.push({ host, path: request.url ?? '' });
    const file = request.url === '/.well-known/campaign-platform-verification.txt' ? tokenFiles.get(host) : undefined;
    if (!file) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(file.status, {
      'content-type': 'text/plain',
      ...(file.location ? { location: file.location } : {}),
    });
    response.end(file.body);
  });
  await new Promise<void>((resolve) => webServer.listen(0, '127.0.0.1', resolve));

  // Every test name resolves to the loopback web server (the HTTP check needs an address even when DNS proves).
  for (const host of TEST_HOSTS) zone.set(host, { a: ['127.0.0.1'] });

  platform = await startTestPlatform({
    worker: true,
    label: 'customdomains',
    env: {
      DNS_RESOLVER_SERVERS: `127.0.0.1:${(dnsServer.address() as AddressInfo).port}`,
      DOMAIN_VERIFICATION_HTTP_PORT: String((webServer.address() as AddressInfo).port),
      SSRF_ALLOW_PRIVATE_HOSTS: TEST_HOSTS.join(','),
      BRAND_SITE_CACHE_TTL_MS: '100',
    },
  });
  owner = await createTenant(platform.container, { name: 'Linen House' });
  other = await createTenant(platform.container, { name: 'Rival Shirts' });
  await seedWorkspace(platform.container, owner, 'Linen');
  const workspace = await acrossWorkspaces(platform.container.orm.em).findOneOrFail(Workspace, {
    id: owner.workspaceId,
  });
  subdomainOrigin = brandSiteUrl(platform.config, workspace.slug);
  // publish and deploy in the seed asked for a republish; the worker renders the first publication.
  await eventually(
    async () => ((await testFetch(`${subdomainOrigin}/`)).status === 200 ? true : undefined),
    'the first publication',
  );
});

afterAll(async () => {
  await platform?.close();
  await closeTestFetch();
  await new Promise<void>((resolve) => (webServer ? webServer.close(() => resolve()) : resolve()));
  dnsServer?.close();
});

describe('host names', () => {
  const reserved = () => reservedHostsOf(platform.config);

  test('are normalised: case, trailing dot, Unicode to punycode', () => {
    expect(normalizeCustomHostname('  Shop.Example.COM. ', reserved())).toBe('shop.example.com');
    expect(normalizeCustomHostname('bücher.example', reserved())).toBe('xn--bcher-kva.example');
    expect(normalizeCustomHostname(SHOP, reserved())).toBe(SHOP);
  });

  test.each([
    ['', /Enter a host name/],
    ['https://shop.example.com/', /host name only/],
    ['shop.example.com:8080', /host name only/],
    ['127.0.0.1', /IP address/],
    ['0x7f.1', /IP address/],
    ['2130706433', /IP address|single label/],
    ['[::1]', /host name only/],
    ['localhost', /single label/],
    ['shop', /single label/],
    ['-shop.example.com', /letters, digits and inner hyphens/],
    ['shop_1.example.com', /letters, digits and inner hyphens|not a valid host name/],
    [`${'a'.repeat(64)}.example.com`, /longer than 63/],
    [`${'abcdefghi.'.repeat(26)}com`, /at most 253/],
    ['app.localhost', /platform's own host names/],
    ['auth.localhost', /platform's own host names/],
    ['sites.localhost', /under sites\.localhost/],
    ['linen.sites.localhost', /under sites\.localhost/],
  ])('%j is refused (%s)', (input, message) => {
    expect(() => normalizeCustomHostname(input, reserved())).toThrow(message);
  });
});

describe('a workspace admin adds and verifies domains', () => {
  let ownerPerson: Person;
  let shop: CustomDomainView;

  beforeAll(async () => {
    ownerPerson = await signIn(owner.userId);
  });

  test('add → pending, with the exact proofs on the page; the custom name still answers 404', async () => {
    const added = await dashboard(ownerPerson, `/w/${owner.workspaceId}/domains`, {
      hostname: 'Shop-Linen.localhost.',
    });
    expect(added.status).toBe(200);
    shop = await domainNamed(owner, SHOP);
    expect(shop).toMatchObject({ status: 'pending', verifiedAt: null, lastError: null, lastCheckedAt: null });
    expect(shop.verificationToken).toMatch(/^[0-9a-f]{32}$/);
    const text = readable(added.text);
    expect(text).toContain(`Added ${SHOP}.`);
    expect(text).toMatch(new RegExp(`${SHOP} pending`));
    expect(added.text).toContain(`<code class="dns-name">_campaign-platform.${SHOP}</code>`);
    expect(added.text).toContain(
      `<code class="dns-value">campaign-platform-verification=${shop.verificationToken}</code>`,
    );
    expect(added.text).toContain(
      `<code class="http-url">http://${SHOP}:${platform.config.domainVerification.httpPort}/.well-known/campaign-platform-verification.txt</code>`,
    );
    expect(added.text).toContain(`<code class="secret http-token">${shop.verificationToken}</code>`);
    expect(added.text).toContain('Verify shop-linen.localhost now');

    const served = await brandAt(SHOP);
    expect(served.status).toBe(404);
  });

  test('verify without any proof → pending, with what was missing; still 404', async () => {
    const attempt = await dashboard(ownerPerson, `/w/${owner.workspaceId}/domains/${shop.id}/verify`, {});
    expect(attempt.status).toBe(200);
    const after = await domainNamed(owner, SHOP);
    expect(after.status).toBe('pending');
    expect(after.lastCheckedAt).not.toBeNull();
    expect(after.lastError).toContain(`no TXT record _campaign-platform.${SHOP} found`);
    expect(after.lastError).toContain('answered 404 instead of 200');
    expect(readable(attempt.text)).toContain(
      `${SHOP} is not verified yet: no TXT record _campaign-platform.${SHOP} found`,
    );
    // Both proofs were really looked for: the TXT query reached the DNS server, the token request the web server.
    expect(dnsQueries).toContainEqual({ name: `_campaign-platform.${SHOP}`, type: TYPE_TXT });
    expect(tokenRequests).toContainEqual({ host: SHOP, path: '/.well-known/campaign-platform-verification.txt' });
    expect((await brandAt(SHOP)).status).toBe(404);
  });

  test('verify by DNS TXT → verified; after the republish the custom name serves the brand on its own origin', async () => {
    zone.set(`_campaign-platform.${SHOP}`, {
      txt: ['some-other-record=1', `campaign-platform-verification=${shop.verificationToken}`],
    });
    const tokenRequestsBefore = tokenRequests.length;
    const verified = await dashboard(ownerPerson, `/w/${owner.workspaceId}/domains/${shop.id}/verify`, {});
    expect(verified.status).toBe(200);
    expect(readable(verified.text)).toContain(`${SHOP} is verified (DNS TXT record)`);
    const after = await domainNamed(owner, SHOP);
    expect(after).toMatchObject({ status: 'verified', verifiedBy: 'dns', lastError: null });
    // DNS proved it: the HTTP check was not needed.
    expect(tokenRequests.length).toBe(tokenRequestsBefore);

    await eventually(
      async () => ((await latestOrigin(owner.workspaceId)) === `http://${SHOP}` ? true : undefined),
      'a publication on the custom origin',
    );
    const home = await eventually(async () => {
      const response = await brandAt(SHOP);
      return response.status === 200 ? response.text() : undefined;
    }, 'the custom name serving the brand home');
    expect(home).toContain(`<link rel="canonical" href="http://${SHOP}/">`);
    expect(home).not.toContain(subdomainOrigin);
    // The brand subdomain still serves the same site, whose links now point at the custom origin.
    const viaSubdomain = await testFetch(`${subdomainOrigin}/`);
    expect(viaSubdomain.status).toBe(200);
    expect(await viaSubdomain.text()).toContain(`<link rel="canonical" href="http://${SHOP}/">`);
  });

  test('a second domain verified by the HTTP token file', async () => {
    await dashboard(ownerPerson, `/w/${owner.workspaceId}/domains`, { hostname: WWW });
    const www = await domainNamed(owner, WWW);
    tokenFiles.set(WWW, { status: 200, body: `\n${www.verificationToken}\n` });
    const verified = await dashboard(ownerPerson, `/w/${owner.workspaceId}/domains/${www.id}/verify`, {});
    expect(readable(verified.text)).toContain(`${WWW} is verified (HTTP token file)`);
    expect(await domainNamed(owner, WWW)).toMatchObject({ status: 'verified', verifiedBy: 'http', lastError: null });
    expect(dnsQueries).toContainEqual({ name: `_campaign-platform.${WWW}`, type: TYPE_TXT });
    const served = await eventually(async () => {
      const response = await brandAt(WWW);
      return response.status === 200 ? response.text() : undefined;
    }, 'the second custom name serving the brand');
    // The first verified domain stays the canonical origin.
    expect(served).toContain(`<link rel="canonical" href="http://${SHOP}/">`);
  });

  test('a wrong token → a specific lastError, and the name still answers 404', async () => {
    await dashboard(ownerPerson, `/w/${owner.workspaceId}/domains`, { hostname: WRONG });
    const wrong = await domainNamed(owner, WRONG);
    tokenFiles.set(WRONG, { status: 200, body: 'f'.repeat(32) });
    zone.set(`_campaign-platform.${WRONG}`, { txt: ['campaign-platform-verification=not-the-token'] });
    const attempt = await dashboard(ownerPerson, `/w/${owner.workspaceId}/domains/${wrong.id}/verify`, {});
    expect(attempt.status).toBe(200);
    const after = await domainNamed(owner, WRONG);
    expect(after.status).toBe('pending');
    expect(after.lastError).toContain(
      `the TXT record _campaign-platform.${WRONG} holds "campaign-platform-verification=not-the-token", not campaign-platform-verification=${wrong.verificationToken}`,
    );
    expect(after.lastError).toContain('HTTP token did not match');
    expect(readable(attempt.text)).toContain('HTTP token did not match');
    expect((await brandAt(WRONG)).status).toBe(404);
  });

  test('a token file behind a redirect is not followed', async () => {
    await dashboard(ownerPerson, `/w/${owner.workspaceId}/domains`, { hostname: HOP });
    const hop = await domainNamed(owner, HOP);
    const port = platform.config.domainVerification.httpPort;
    tokenFiles.set(HOP, {
      status: 302,
      body: '',
      location: `http://${WWW}:${port}/.well-known/campaign-platform-verification.txt`,
    });
    tokenFiles.set(WWW, { status: 200, body: hop.verificationToken });
    const before = tokenRequests.length;
    await dashboard(ownerPerson, `/w/${owner.workspaceId}/domains/${hop.id}/verify`, {});
    const after = await domainNamed(owner, HOP);
    expect(after.status).toBe('pending');
    expect(after.lastError).toMatch(/redirect/);
    expect(tokenRequests.slice(before).map((request) => request.host)).toEqual([HOP]);
  });

  test('at most five domains per workspace', async () => {
    const fifth = await dashboard(ownerPerson, `/w/${owner.workspaceId}/domains`, { hostname: 'five-linen.localhost' });
    expect(fifth.status).toBe(200);
    expect(fifth.text).toContain('the most it can have');
    const sixth = await dashboard(ownerPerson, `/w/${owner.workspaceId}/domains`, { hostname: 'six-linen.localhost' });
    expect(sixth.status).toBe(409);
    expect(readable(sixth.text)).toContain('A workspace can have at most 5 custom domains; remove one first');
    expect(await domainsOf(owner)).toHaveLength(5);
  });

  test('another workspace cannot add the same name, nor see, verify or remove the first one’s domains', async () => {
    const rival = await signIn(other.userId);
    const taken = await dashboard(rival, `/w/${other.workspaceId}/domains`, { hostname: SHOP.toUpperCase() });
    expect(taken.status).toBe(409);
    const text = readable(taken.text);
    expect(text).toContain(`${SHOP} is already in use by another workspace`);
    expect(taken.text).not.toContain(owner.workspaceId);
    expect(taken.text).not.toContain(owner.workspaceName);
    expect(taken.text).not.toContain(shop.verificationToken);
    expect(await domainsOf(other)).toEqual([]);

    // Through its own workspace: the first workspace's domain id answers exactly like an id that does not exist.
    const missingId = 'dom_01J0000000000000000000000A';
    for (const action of ['verify', 'remove']) {
      const foreign = await dashboard(rival, `/w/${other.workspaceId}/domains/${shop.id}/${action}`, {});
      const missing = await dashboard(rival, `/w/${other.workspaceId}/domains/${missingId}/${action}`, {});
      expect(foreign.status).toBe(404);
      expect(missing.status).toBe(404);
      expect(readable(foreign.text)).toContain(`Custom domain ${shop.id} was not found`);
      expect(
        readable(foreign.text)
          .replace(shop.id, 'ID')
          .replace(/csrf" value="[^"]+"/, ''),
      ).toBe(
        readable(missing.text)
          .replace(missingId, 'ID')
          .replace(/csrf" value="[^"]+"/, ''),
      );
    }
    // Through the first workspace's pages: not a member, so "not found".
    expect((await dashboard(rival, `/w/${owner.workspaceId}/domains`)).status).toBe(404);
    expect((await dashboard(rival, `/w/${owner.workspaceId}/domains/${shop.id}/remove`, {})).status).toBe(404);
    // And the service itself is scoped the same way.
    const scope = workspaceScope(platform.container.orm.em, other.workspaceId, actors.operator);
    await expect(platform.container.services.customDomains.verify(scope, shop.id)).rejects.toThrow(NotFoundError);
    await expect(platform.container.services.customDomains.remove(scope, shop.id)).rejects.toThrow(NotFoundError);

    expect(await domainNamed(owner, SHOP)).toMatchObject({ status: 'verified' });
    expect((await brandAt(SHOP)).status).toBe(200);
  });

  test('viewers and editors are refused, and change nothing', async () => {
    const before = await domainsOf(owner);
    const wrong = before.find((domain) => domain.hostname === WRONG)!;
    for (const role of ['viewer', 'editor'] as const) {
      const person = await member(owner, role);
      const listing = await dashboard(person, `/w/${owner.workspaceId}/domains`);
      expect(listing.status).toBe(403);
      expect(listing.text).not.toContain(shop.verificationToken);
      const overview = await dashboard(person, `/w/${owner.workspaceId}`);
      expect(overview.text).not.toContain(`/w/${owner.workspaceId}/domains`);
      for (const [path, form] of [
        [`/w/${owner.workspaceId}/domains`, { hostname: 'viewer-linen.localhost' }],
        [`/w/${owner.workspaceId}/domains/${wrong.id}/verify`, {}],
        [`/w/${owner.workspaceId}/domains/${shop.id}/remove`, {}],
      ] as const) {
        const attempt = await dashboard(person, path, form);
        expect(attempt.status).toBe(403);
        expect(readable(attempt.text)).toContain(`Your role (${role}) does not allow this.`);
      }
    }
    expect(await domainsOf(owner)).toEqual(before);
  });

  test('forms need the session’s CSRF token', async () => {
    const forged = await dashboard(
      { ...ownerPerson, csrf: 'not-the-token' },
      `/w/${owner.workspaceId}/domains/${shop.id}/remove`,
      {},
    );
    expect(forged.status).toBe(403);
    expect(await domainNamed(owner, SHOP)).toMatchObject({ status: 'verified' });
  });

  test('removing the canonical domain stops it serving and moves pages to the next verified domain', async () => {
    const removed = await dashboard(ownerPerson, `/w/${owner.workspaceId}/domains/${shop.id}/remove`, {});
    expect(removed.status).toBe(200);
    expect(readable(removed.text)).toContain(`Removed ${SHOP}.`);
    expect((await domainsOf(owner)).map((domain) => domain.hostname)).not.toContain(SHOP);
    await eventually(async () => ((await brandAt(SHOP)).status === 404 ? true : undefined), 'the removed name to 404');
    await eventually(
      async () => ((await latestOrigin(owner.workspaceId)) === `http://${WWW}` ? true : undefined),
      'a publication on the next verified origin',
    );
    const home = await eventually(async () => {
      const text = await (await brandAt(WWW)).text();
      return text.includes(`<link rel="canonical" href="http://${WWW}/">`) ? text : undefined;
    }, 'pages linking to the next verified origin');
    expect(home).not.toContain(`http://${SHOP}`);
    // The name is free again, for anyone.
    const rival = await signIn(other.userId);
    expect((await dashboard(rival, `/w/${other.workspaceId}/domains`, { hostname: SHOP })).status).toBe(200);
    expect((await domainNamed(other, SHOP)).status).toBe('pending');
    expect((await brandAt(SHOP)).status).toBe(404);
  });

  test('every add, verification and removal is in the audit log', async () => {
    const events = await platform.container.services.audit.list(
      acrossWorkspaces(platform.container.orm.em),
      owner.workspaceId,
      {
        limit: 200,
      },
    );
    const domainEvents = events
      .filter((event) => event.action.startsWith('custom_domain.'))
      .map((event) => ({ action: event.action, outcome: event.outcome, hostname: event.details.hostname }))
      .reverse();
    expect(domainEvents).toEqual([
      { action: 'custom_domain.add', outcome: 'success', hostname: SHOP },
      { action: 'custom_domain.verify', outcome: 'failed', hostname: SHOP },
      { action: 'custom_domain.verify', outcome: 'success', hostname: SHOP },
      { action: 'custom_domain.add', outcome: 'success', hostname: WWW },
      { action: 'custom_domain.verify', outcome: 'success', hostname: WWW },
      { action: 'custom_domain.add', outcome: 'success', hostname: WRONG },
      { action: 'custom_domain.verify', outcome: 'failed', hostname: WRONG },
      { action: 'custom_domain.add', outcome: 'success', hostname: HOP },
      { action: 'custom_domain.verify', outcome: 'failed', hostname: HOP },
      { action: 'custom_domain.add', outcome: 'success', hostname: 'five-linen.localhost' },
      { action: 'custom_domain.remove', outcome: 'success', hostname: SHOP },
    ]);
    const verification = events.find(
      (event) =>
        event.action === 'custom_domain.verify' && event.details.hostname === SHOP && event.outcome === 'success',
    )!;
    expect(verification.actor).toBe(`user:${owner.userId}`);
    expect(verification.details.method).toBe('dns');
  });
});
