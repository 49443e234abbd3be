/**
 * The SSRF guard (src/net/safe-fetch.ts), end to end against local HTTP servers; no database or Temporal.
 *
 * - `shop.test` and `cdn.test` are allowlisted (`allowPrivateHosts`) and resolve to the shop server on
 *   127.0.0.1; everything else is judged as the open web would be.
 * - A "victim" server on 127.0.0.1 stands for whatever listens inside: it must never get a connection.
 * - Every socket the code under test opens is intercepted (`net.connect` / `tls.connect`): where it was headed
 *   is recorded, a connection to a name on port 80/443 that would land on 127.0.0.1 is sent to the victim (as
 *   if the victim listened on :80), and a connection that would leave the machine is refused on the spot. So
 *   the test never reaches the internet, and it can see which address a connection actually went to.
 */
import dns, { type LookupAddress } from 'node:dns';
import http from 'node:http';
import net, { type AddressInfo, type LookupFunction } from 'node:net';
import tls from 'node:tls';
import zlib from 'node:zlib';
import {
  createSafeFetch,
  FetchRefusedError,
  isPublicAddress,
  type FetchRefusalReason,
  type Resolver,
  type SafeFetch,
} from '../../src/net/safe-fetch.ts';
import { pollUntil } from '../support/poll.ts';

/** In every body the servers send; no refusal message may contain it. */
const MARKER = 'BODY-MARKER-5f3c9a-secret';
/** A public address (never actually connected to: the interceptor refuses it). */
const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:2800:220:1:248:1893:25c8:1946';

const ALLOWED = ['shop.test', 'cdn.test'];

const servers: http.Server[] = [];
const instances: SafeFetch[] = [];
let shopPort: number;
let victimPort: number;
/** A port nothing listens on: connections that would leave the machine are sent here instead. */
let closedPort: number;
let victimConnections = 0;
let base: string;
let bomb: Buffer;

/** Requests the shop server received, as `METHOD path`, with their headers. */
const shopRequests: { line: string; headers: http.IncomingHttpHeaders }[] = [];

interface ConnectionRecord {
  host: string;
  port: number;
  address?: string;
}
/** Every connection the code under test opened: the host as asked for and the address it was headed to. */
const connections: ConnectionRecord[] = [];

/** Per-hostname resolver calls of the shared instance. */
const resolverCalls = new Map<string, number>();

const DNS_TABLE: Record<string, LookupAddress[]> = {
  'shop.test': [{ address: '127.0.0.1', family: 4 }],
  'cdn.test': [{ address: '127.0.0.1', family: 4 }],
  'public.test': [{ address: PUBLIC_V4, family: 4 }],
  'public6.test': [{ address: PUBLIC_V6, family: 6 }],
  'public-mapped.test': [{ address: `::ffff:${PUBLIC_V4}`, family: 6 }],
  'loopback.test': [{ address: '127.0.0.1', family: 4 }],
  'internal.test': [{ address: '10.0.0.7', family: 4 }],
  'metadata.test': [{ address: '169.254.169.254', family: 4 }],
  'cgnat.test': [{ address: '100.64.0.1', family: 4 }],
  'ula.test': [{ address: 'fd00::1', family: 6 }],
  'v6-loopback.test': [{ address: '::1', family: 6 }],
  'mapped-loopback.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'compat-loopback.test': [{ address: '::7f00:1', family: 6 }],
  'nat64.test': [{ address: '64:ff9b::a9fe:a9fe', family: 6 }],
  '6to4.test': [{ address: '2002:7f00:1::', family: 6 }],
  'teredo.test': [{ address: '2001:0:4136:e378:8000:63bf:3fff:fdd2', family: 6 }],
  'link-local6.test': [{ address: 'fe80::1', family: 6 }],
  'unspecified.test': [{ address: '0.0.0.0', family: 4 }],
  'multicast.test': [{ address: '224.0.0.1', family: 4 }],
  'broadcast.test': [{ address: '255.255.255.255', family: 4 }],
  'private172.test': [{ address: '172.16.5.4', family: 4 }],
  'mixed.test': [
    { address: PUBLIC_V4, family: 4 },
    { address: PUBLIC_V6, family: 6 },
    { address: '192.168.0.10', family: 4 },
  ],
  'mixed-last-v6.test': [
    { address: PUBLIC_V4, family: 4 },
    { address: 'fe80::1', family: 6 },
  ],
  'empty.test': [],
};

const tableResolver: Resolver = async (hostname) => {
  resolverCalls.set(hostname, (resolverCalls.get(hostname) ?? 0) + 1);
  if (hostname === 'hang.test') return new Promise<never>(() => {});
  const answer = DNS_TABLE[hostname];
  if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answer;
};

let safe: SafeFetch;

function track(instance: SafeFetch): SafeFetch {
  instances.push(instance);
  return instance;
}

/**
 * Awaits a refusal: a FetchRefusedError with this reason (and, when given, this message) whose message never
 * carries the body.
 */
async function refusal(
  promise: Promise<unknown>,
  reason: FetchRefusalReason,
  message?: string | RegExp,
): Promise<FetchRefusedError> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a refusal (${reason}), got ${JSON.stringify(value).slice(0, 200)}`);
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FetchRefusedError);
  const refused = error as FetchRefusedError;
  expect({ reason: refused.reason, message: refused.message }).toEqual({
    reason,
    message:
      message === undefined
        ? expect.any(String)
        : typeof message === 'string'
          ? message
          : expect.stringMatching(message),
  });
  expect(refused.message).not.toContain(MARKER);
  expect(refused.message).not.toContain('BODY-MARKER');
  return refused;
}

/**
 * Fetches `url`, which only a time cap can end, three times at once: capped at 400 ms, then at 100 ms, then at
 * ten minutes (longer than any test). Each is refused as a timeout, and in this order among timers of 50 and
 * 250 ms started alongside: 50 ms, the 100 ms cap, 250 ms, the 400 ms cap, while the third is still going. So
 * each fetch was ended by its own cap, neither early nor late: an order of events on one clock rather than a
 * stopwatch, which a slow machine cannot upset (it delays them all alike).
 */
async function expectEndedByOwnCaps(url: string): Promise<void> {
  const events: string[] = [];
  const outlasting = new AbortController();
  const capped = (timeoutMs: number, signal?: AbortSignal) =>
    refusal(safe.fetch(url, { timeoutMs, signal }), 'timeout').finally(() => events.push(`${timeoutMs} ms cap`));
  const fetches = [capped(400), capped(100), capped(600_000, outlasting.signal)];
  for (const ms of [50, 250]) setTimeout(() => events.push(`${ms} ms timer`), ms);
  await Promise.all(fetches.slice(0, 2));
  expect(events).toEqual(['50 ms timer', '100 ms cap', '250 ms timer', '400 ms cap']);
  outlasting.abort();
  await fetches[2];
}

/** Waits until the shop server has received `count` requests more than `before`. */
async function requestsReceived(before: number, count: number): Promise<void> {
  await pollUntil(
    () => shopRequests.length - before,
    (received) => received >= count,
    {
      timeoutMs: 10_000,
      intervalMs: 10,
      timeoutMessage: (received) => `the shop got ${received} of ${count} requests`,
    },
  );
}

async function listen(server: http.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Writes `chunk` for as long as the client reads (and stops when it goes away). */
function pumpForever(res: http.ServerResponse, chunk: Buffer): void {
  const pump = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
}

function shopHandler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://shop.test');
  shopRequests.push({ line: `${req.method} ${url.pathname}${url.search}`, headers: req.headers });
  const html = `<!doctype html><title>Product</title><p>${MARKER}</p>`;
  const redirect = (status: number, location: string) => {
    res.writeHead(status, { location, 'content-type': 'text/html' });
    res.end(`<p>Moved ${MARKER}</p>`);
  };
  switch (url.pathname) {
    case '/page':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html);
      return;
    case '/json':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ marker: MARKER }));
      return;
    case '/weird-type':
      res.writeHead(200, { 'content-type': `${MARKER}/<script>` });
      res.end(MARKER);
      return;
    case '/no-type':
      res.writeHead(200);
      res.end(MARKER);
      return;
    case '/echo-headers':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.headers));
      return;
    case '/echo': {
      // The request as it arrived: method, headers and body.
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      });
      return;
    }
    case '/not-found':
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end(`<p>Not here ${MARKER}</p>`);
      return;
    case '/no-content':
      res.writeHead(204);
      res.end();
      return;
    case '/gzipped-page':
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(zlib.gzipSync(html));
      return;
    case '/chain': {
      // /chain?n=3 → /chain?n=2 → /chain?n=1 → /page (relative, absolute and status variants)
      const n = Number(url.searchParams.get('n') ?? 0);
      const status = Number(url.searchParams.get('status') ?? 302);
      if (n <= 0) return redirect(status, '/page');
      if (n % 2) return redirect(status, `/chain?n=${n - 1}&status=${status}`);
      return redirect(status, `http://shop.test:${shopPort}/chain?n=${n - 1}&status=${status}`);
    }
    case '/to':
      return redirect(Number(url.searchParams.get('status') ?? 302), url.searchParams.get('url') ?? '/');
    case '/loop':
      return redirect(302, '/loop');
    case '/big-declared':
      // Declares 10 MB, sends a little, then holds the connection: only the header can refuse this fast.
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(10 * 1024 * 1024) });
      res.write(html);
      return;
    case '/big-stream':
      // No Content-Length, and it never ends.
      res.writeHead(200, { 'content-type': 'text/html' });
      pumpForever(res, Buffer.from(`${MARKER}\n`.repeat(2048)));
      return;
    case '/bomb':
      res.writeHead(200, {
        'content-type': 'text/html',
        'content-encoding': 'gzip',
        'content-length': String(bomb.length),
      });
      res.end(bomb);
      return;
    case '/hang':
      // Reads the request and never answers.
      return;
    case '/trickle': {
      res.writeHead(200, { 'content-type': 'text/html' });
      const timer = setInterval(() => res.write(MARKER.slice(0, 1)), 50);
      res.on('close', () => clearInterval(timer));
      return;
    }
    default:
      res.writeHead(404);
      res.end();
  }
}

type AnyFn = (...args: unknown[]) => unknown;
const originalNetConnect = net.connect as unknown as AnyFn;
const originalTlsConnect = tls.connect as unknown as AnyFn;

function refusedError(): NodeJS.ErrnoException {
  return Object.assign(new Error('connect ECONNREFUSED (the test never leaves the machine)'), {
    code: 'ECONNREFUSED',
  });
}

/** Wraps `net.connect` / `tls.connect`; see the file comment. */
function intercept(original: AnyFn): AnyFn {
  return (...args: unknown[]) => {
    const given = args[0];
    if (typeof given !== 'object' || given === null) return original(...args);
    const options = { ...(given as Record<string, unknown>) } as Record<string, unknown> & {
      host?: string;
      port?: number | string;
      lookup?: LookupFunction;
    };
    const host = String(options.host ?? '').replace(/^\[|\]$/g, '');
    const port = Number(options.port);
    const record: ConnectionRecord = { host, port };
    connections.push(record);
    if (net.isIP(host)) {
      record.address = host;
      if (host !== '127.0.0.1') Object.assign(options, { host: '127.0.0.1', port: closedPort });
      else if (port === 80 || port === 443) options.port = victimPort;
      return original(options, ...args.slice(1));
    }
    if (!ALLOWED.includes(host) && (port === 80 || port === 443)) options.port = victimPort;
    const lookup: LookupFunction = options.lookup ?? (dns.lookup as unknown as LookupFunction);
    options.lookup = ((hostname: string, lookupOptions: dns.LookupOptions, callback: AnyFn) => {
      lookup(hostname, lookupOptions, ((error: NodeJS.ErrnoException | null, address: unknown, family?: number) => {
        if (error) return callback(error, address, family);
        const first = Array.isArray(address) ? (address as LookupAddress[])[0]?.address : (address as string);
        record.address = first;
        if (first !== '127.0.0.1') return callback(refusedError(), lookupOptions.all ? [] : '', 4);
        return callback(null, address, family);
      }) as never);
    }) as unknown as LookupFunction;
    return original(options, ...args.slice(1));
  };
}

function connectionsSince(start: number): ConnectionRecord[] {
  return connections.slice(start);
}

/** The host of a URL as the guard sees it: normalised by the WHATWG parser, without IPv6 brackets. */
function hostOfUrl(url: string): string {
  return new URL(url).hostname.replace(/^\[|\]$/g, '');
}

beforeAll(async () => {
  bomb = zlib.gzipSync(Buffer.alloc(32 * 1024 * 1024));
  shopPort = await listen(http.createServer(shopHandler));
  const victim = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`victim ${MARKER}`);
  });
  victim.on('connection', () => victimConnections++);
  victimPort = await listen(victim);
  const probe = http.createServer();
  closedPort = await listen(probe);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  servers.splice(servers.indexOf(probe), 1);
  base = `http://shop.test:${shopPort}`;
  (net as unknown as { connect: AnyFn }).connect = intercept(originalNetConnect);
  (tls as unknown as { connect: AnyFn }).connect = intercept(originalTlsConnect);
  safe = track(createSafeFetch({ allowPrivateHosts: ALLOWED, resolver: tableResolver, userAgent: 'guard-test/1' }));
});

afterAll(async () => {
  (net as unknown as { connect: AnyFn }).connect = originalNetConnect;
  (tls as unknown as { connect: AnyFn }).connect = originalTlsConnect;
  await Promise.all(instances.map((instance) => instance.close()));
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

afterEach(() => {
  // Whatever a test did, nothing inside was reached except through the allowlist.
  expect(victimConnections).toBe(0);
});

describe('allowed host', () => {
  it('returns the body, status, content type and headers; the user agent is sent', async () => {
    const result = await safe.fetch(`${base}/page`, { accept: ['text/html'] });
    expect(result).toMatchObject({ url: `${base}/page`, status: 200, contentType: 'text/html', redirects: [] });
    expect(result.body.toString('utf8')).toContain(MARKER);
    expect(result.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(shopRequests.at(-1)?.headers['user-agent']).toBe('guard-test/1');
  });

  it('accepts any type without `accept`, matches `accept` case-insensitively, and returns non-2xx as is', async () => {
    expect((await safe.fetch(`${base}/json`)).contentType).toBe('application/json');
    expect((await safe.fetch(`${base}/page`, { accept: ['Text/HTML'] })).contentType).toBe('text/html');
    const notFound = await safe.fetch(`${base}/not-found`);
    expect(notFound.status).toBe(404);
  });

  it('decodes gzip and answers HEAD without a body', async () => {
    const gz = await safe.fetch(`${base}/gzipped-page`);
    expect(gz.body.toString('utf8')).toContain(MARKER);
    const head = await safe.fetch(`${base}/page`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(shopRequests.at(-1)?.line).toBe('HEAD /page');
  });

  it.each([301, 302, 303, 307, 308])('follows %i redirects within the host and records each hop', async (status) => {
    const result = await safe.fetch(`${base}/chain?n=3&status=${status}`, { accept: ['text/html'] });
    expect(result.status).toBe(200);
    expect(result.url).toBe(`${base}/page`);
    expect(result.redirects).toEqual([
      `${base}/chain?n=2&status=${status}`,
      `${base}/chain?n=1&status=${status}`,
      `${base}/chain?n=0&status=${status}`,
      `${base}/page`,
    ]);
    expect(result.body.toString('utf8')).toContain(MARKER);
  });

  it('follows a redirect to another allowed host, dropping credentials but keeping other headers', async () => {
    const headers = { authorization: 'Bearer s3cret', cookie: 'sid=1', 'x-trace': 'abc' };
    const sameOrigin = await safe.fetch(`${base}/to?url=/echo-headers`, { headers });
    expect(JSON.parse(sameOrigin.body.toString('utf8'))).toMatchObject(headers);

    const target = `http://cdn.test:${shopPort}/echo-headers`;
    const crossOrigin = await safe.fetch(`${base}/to?url=${encodeURIComponent(target)}`, { headers });
    expect(crossOrigin.redirects).toEqual([target]);
    const echoed = JSON.parse(crossOrigin.body.toString('utf8')) as Record<string, string>;
    expect(echoed['x-trace']).toBe('abc');
    expect(echoed.authorization).toBeUndefined();
    expect(echoed.cookie).toBeUndefined();
  });

  it('lets only the listed names use private addresses and other ports', async () => {
    // Port first (no DNS needed); on port 80 the name resolves to loopback and is refused.
    await refusal(safe.fetch(`http://loopback.test:${shopPort}/page`), 'forbidden_port');
    await refusal(safe.fetch('http://loopback.test/page'), 'blocked_address');
    // A trailing dot is another name as far as the allowlist goes.
    await refusal(safe.fetch(`http://shop.test.:${shopPort}/page`), 'forbidden_port');
  });
});

describe('IP literals', () => {
  // [URL, the address as the URL parser normalises it (and as the message names it)]
  const blocked: [string, string][] = [
    // IPv4 loopback in every spelling the WHATWG parser accepts
    ['http://127.0.0.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://0177.1/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0x7f.0x0.0x0.0x1/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://127.000.000.001/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'], // trailing dot
    ['http://%31%32%37.0.0.1/', '127.0.0.1'], // percent-encoded digits
    ['http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/', '127.0.0.1'], // fullwidth digits (IDNA maps them)
    ['http://127\u30020\u30020\u30021/', '127.0.0.1'], // ideographic full stops
    ['http://127.255.255.254/', '127.255.255.254'],
    // unspecified
    ['http://0/', '0.0.0.0'],
    ['http://0.0.0.0/', '0.0.0.0'],
    ['http://[::]/', '::'],
    // IPv6 loopback and IPv4 embedded in IPv6
    ['http://[::1]/', '::1'],
    ['http://[0:0:0:0:0:0:0:1]/', '::1'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'], // IPv4-mapped
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe'],
    ['http://[::ffff:0:7f00:1]/', '::ffff:0:7f00:1'], // IPv4-translated (RFC 6145)
    ['http://[::127.0.0.1]/', '::7f00:1'], // IPv4-compatible (deprecated ::/96)
    ['http://[::a9fe:a9fe]/', '::a9fe:a9fe'],
    ['http://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1'], // NAT64 embedding 127.0.0.1
    ['http://[64:ff9b::127.0.0.1]/', '64:ff9b::7f00:1'],
    ['http://[64:ff9b:1::a9fe:a9fe]/', '64:ff9b:1::a9fe:a9fe'], // local-use NAT64
    ['http://[2002:7f00:1::]/', '2002:7f00:1::'], // 6to4 embedding 127.0.0.1
    ['http://[2002:a9fe:a9fe::1]/', '2002:a9fe:a9fe::1'], // 6to4 embedding 169.254.169.254
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', '2001:0:4136:e378:8000:63bf:3fff:fdd2'], // Teredo
    // cloud metadata and link-local
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254'], // AWS IMDS over IPv6
    ['http://[fe80::1]/', 'fe80::1'],
    ['http://[fec0::1]/', 'fec0::1'], // site-local (deprecated)
    // private, CGNAT, unique-local
    ['http://10.0.0.1/', '10.0.0.1'],
    ['http://10.255.255.255/', '10.255.255.255'],
    ['http://172.16.0.1/', '172.16.0.1'],
    ['http://172.31.255.255/', '172.31.255.255'],
    ['http://192.168.1.1/', '192.168.1.1'],
    ['http://100.64.0.1/', '100.64.0.1'],
    ['http://100.127.255.254/', '100.127.255.254'],
    ['https://[fd00::1]/', 'fd00::1'],
    ['http://[fc00::1]/', 'fc00::1'],
    // multicast and broadcast
    ['http://224.0.0.1/', '224.0.0.1'],
    ['http://239.255.255.250/', '239.255.255.250'],
    ['http://[ff02::1]/', 'ff02::1'],
    ['http://255.255.255.255/', '255.255.255.255'],
    ['http://4294967295/', '255.255.255.255'],
    // reserved, documentation, benchmarking, outside 2000::/3
    ['http://192.0.0.1/', '192.0.0.1'],
    ['http://192.0.2.1/', '192.0.2.1'],
    ['http://198.18.0.1/', '198.18.0.1'],
    ['http://240.0.0.1/', '240.0.0.1'],
    ['http://[2001:db8::1]/', '2001:db8::1'],
    ['http://[2001:2::1]/', '2001:2::1'],
    ['http://[100::1]/', '100::1'],
    ['http://[3fff::1]/', '3fff::1'],
    ['http://[5f00::1]/', '5f00::1'],
  ];

  it.each(blocked)('%s → blocked_address (%s), without opening a connection', async (url, address) => {
    expect(hostOfUrl(url)).toBe(address);
    const before = connections.length;
    await refusal(safe.fetch(url), 'blocked_address', `The address ${address} is not a public internet address`);
    expect(connectionsSince(before)).toEqual([]);
  });

  it.each([
    'http://127.0.0.1:8080/',
    'http://127.0.0.1:SHOP/page',
    'http://127.0.0.1:VICTIM/',
    'http://[::1]:22/',
    'http://127.0.0.1:6379/',
    'http://10.0.0.1:443/',
  ])('%s → blocked_address: the address is judged before the port', async (url) => {
    const before = connections.length;
    const target = url.replace('SHOP', String(shopPort)).replace('VICTIM', String(victimPort));
    await refusal(safe.fetch(target), 'blocked_address', /^The address [\d.:]+ is not a public internet address$/);
    expect(connectionsSince(before)).toEqual([]);
  });

  it.each([`http://${PUBLIC_V4}/`, `https://${PUBLIC_V4}/`, `http://[${PUBLIC_V6}]/`, `http://[::ffff:${PUBLIC_V4}]/`])(
    '%s passes the guard (the connection is attempted, and refused by the test)',
    async (url) => {
      const before = connections.length;
      await refusal(safe.fetch(url, { timeoutMs: 3_000 }), 'connection_failed');
      expect(connectionsSince(before).length).toBeGreaterThan(0);
    },
  );

  it('public literals on other ports → forbidden_port', async () => {
    await refusal(safe.fetch(`http://${PUBLIC_V4}:8080/`), 'forbidden_port');
    await refusal(safe.fetch(`https://[${PUBLIC_V6}]:8443/`), 'forbidden_port');
  });

  it('isPublicAddress classifies addresses as the guard does', () => {
    const table: [string, boolean][] = [
      ['8.8.8.8', true],
      [PUBLIC_V4, true],
      [PUBLIC_V6, true],
      [`::ffff:${PUBLIC_V4}`, true],
      ['2a00:1450:4001:80b::200e', true],
      ['127.0.0.1', false],
      ['::1', false],
      ['::7f00:1', false],
      ['::ffff:10.0.0.1', false],
      ['fd00:ec2::254', false],
      ['2002:a9fe:a9fe::1', false],
      ['64:ff9b::7f00:1', false],
      ['4000::1', false],
      ['not-an-address', false],
      ['', false],
    ];
    expect(table.map(([address]) => [address, isPublicAddress(address)])).toEqual(table);
  });
});

describe('names resolving to non-public addresses', () => {
  it.each([
    'loopback.test',
    'internal.test',
    'private172.test',
    'metadata.test',
    'cgnat.test',
    'ula.test',
    'link-local6.test',
    'unspecified.test',
    'multicast.test',
    'broadcast.test',
    'v6-loopback.test',
    'mapped-loopback.test',
    'compat-loopback.test',
    'nat64.test',
    '6to4.test',
    'teredo.test',
    'mixed.test', // public, public, private: one bad answer refuses the name
    'mixed-last-v6.test',
  ])('http://%s/ → blocked_address, and the connection is never made', async (host) => {
    const before = connections.length;
    await refusal(
      safe.fetch(`http://${host}/`),
      'blocked_address',
      `The host ${host} resolves to a non-public address; only public internet addresses can be fetched`,
    );
    expect(connectionsSince(before).every((record) => record.address === undefined)).toBe(true);
  });

  it.each(['public.test', 'public6.test', 'public-mapped.test'])(
    'http://%s/ passes the guard and connects to the address it checked',
    async (host) => {
      const before = connections.length;
      await refusal(safe.fetch(`http://${host}/`, { timeoutMs: 3_000 }), 'connection_failed');
      const [answer] = DNS_TABLE[host]!;
      expect(connectionsSince(before)).toEqual([{ host, port: 80, address: answer!.address }]);
    },
  );

  it('https and explicit :80/:443 on a public name pass the port check', async () => {
    for (const url of ['https://public.test/', 'http://public.test:443/', 'https://public.test:80/']) {
      const before = connections.length;
      await refusal(safe.fetch(url, { timeoutMs: 3_000 }), 'connection_failed');
      expect(connectionsSince(before).map((record) => record.address)).toEqual([PUBLIC_V4]);
    }
  });

  it('a DNS failure or an empty answer → dns_failure', async () => {
    await refusal(safe.fetch('http://nxdomain.test/'), 'dns_failure');
    await refusal(safe.fetch('http://empty.test/'), 'dns_failure');
  });

  it('a resolver that never answers → timeout, at the cap of each fetch', async () => {
    await expectEndedByOwnCaps('http://hang.test/');
  });

  it('DNS rebinding: the connection goes to the address that was checked, and each new connection is re-checked', async () => {
    const answers: LookupAddress[][] = [[{ address: PUBLIC_V4, family: 4 }], [{ address: '127.0.0.1', family: 4 }]];
    let calls = 0;
    const rebinding = track(
      createSafeFetch({
        resolver: async () => answers[Math.min(calls++, answers.length - 1)]!,
      }),
    );
    const before = connections.length;
    // The first answer is public: that is where the connection goes (the test refuses it), never to loopback
    // from a second lookup.
    await refusal(rebinding.fetch('http://rebind.test/', { timeoutMs: 3_000 }), 'connection_failed');
    expect(calls).toBe(1);
    expect(connectionsSince(before)).toEqual([{ host: 'rebind.test', port: 80, address: PUBLIC_V4 }]);
    // The next connection resolves again, gets loopback and is refused before connecting.
    await refusal(rebinding.fetch('http://rebind.test/'), 'blocked_address');
    expect(calls).toBe(2);
    expect(victimConnections).toBe(0);
  });

  it('names are not resolved for URLs refused up front', async () => {
    resolverCalls.clear();
    await refusal(safe.fetch('http://public.test:8080/'), 'forbidden_port');
    await refusal(safe.fetch('ftp://public.test/'), 'unsupported_scheme');
    await refusal(safe.fetch('http://user:pw@public.test/'), 'credentials_in_url');
    expect(resolverCalls.size).toBe(0);
  });
});

describe('the system resolver', () => {
  let system: SafeFetch;
  let systemAllowingLocalhost: SafeFetch;
  beforeAll(() => {
    system = track(createSafeFetch());
    systemAllowingLocalhost = track(createSafeFetch({ allowPrivateHosts: ['localhost'] }));
  });

  // (`localhost.` is left out: whether the system resolver answers for it depends on the machine.)
  it.each(['http://localhost/', 'http://LOCALHOST/admin'])(
    '%s → blocked_address, and the connection is never made',
    async (url) => {
      const host = hostOfUrl(url);
      const before = connections.length;
      await refusal(
        system.fetch(url),
        'blocked_address',
        `The host ${host} resolves to a non-public address; only public internet addresses can be fetched`,
      );
      expect(connectionsSince(before).every((record) => record.address === undefined)).toBe(true);
    },
  );

  it('localhost on the victim port → forbidden_port, before any lookup', async () => {
    const before = connections.length;
    await refusal(system.fetch(`http://localhost:${victimPort}/`), 'forbidden_port');
    expect(connectionsSince(before)).toEqual([]);
  });

  it('an allowlisted localhost reaches a loopback server (the guard is what blocks above)', async () => {
    const result = await systemAllowingLocalhost.fetch(`http://localhost:${shopPort}/page`, { accept: ['text/html'] });
    expect(result.status).toBe(200);
    expect(result.body.toString('utf8')).toContain(MARKER);
    // Only the name is allowlisted: the same server by its address, or by the name with a trailing dot, is not.
    await refusal(systemAllowingLocalhost.fetch(`http://127.0.0.1:${shopPort}/page`), 'blocked_address');
    await refusal(systemAllowingLocalhost.fetch(`http://localhost.:${shopPort}/page`), 'forbidden_port');
  });

  it('an allowlisted localhost that redirects to a loopback literal is refused at that hop', async () => {
    const before = shopRequests.length;
    const target = `http://127.0.0.1:${victimPort}/`;
    await refusal(
      systemAllowingLocalhost.fetch(`http://localhost:${shopPort}/to?url=${encodeURIComponent(target)}`),
      'blocked_address',
    );
    expect(shopRequests.length - before).toBe(1);
  });
});

describe('redirects', () => {
  const to = (target: string, status = 302) => `${base}/to?status=${status}&url=${encodeURIComponent(target)}`;

  // PORT stands for the shop server's port, VICTIM for the victim's. The shop is the "public" first hop: an
  // allowlisted name; the targets are not allowlisted, so each is judged as any URL from the open web.
  it.each<[string, string, FetchRefusalReason]>([
    ['loopback literal on the server port', 'http://127.0.0.1:PORT/page', 'blocked_address'],
    ['the victim, directly on its port', 'http://127.0.0.1:VICTIM/', 'blocked_address'],
    ['loopback literal on port 80', 'http://127.0.0.1/', 'blocked_address'],
    ['decimal loopback', 'http://2130706433/', 'blocked_address'],
    ['hex loopback', 'http://0x7f000001/', 'blocked_address'],
    ['0.0.0.0', 'http://0.0.0.0:VICTIM/', 'blocked_address'],
    ['IPv6 loopback', 'http://[::1]:VICTIM/', 'blocked_address'],
    ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]:PORT/', 'blocked_address'],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data/', 'blocked_address'],
    ['a private address', 'http://192.168.0.1/', 'blocked_address'],
    ['a name resolving to a private address', 'http://internal.test/', 'blocked_address'],
    ['a name resolving to loopback', 'http://loopback.test/admin', 'blocked_address'],
    ['a public name on another port', 'http://public.test:8080/', 'forbidden_port'],
    ['file:', 'file:///etc/passwd', 'unsupported_scheme'],
    ['gopher:', 'gopher://127.0.0.1:6379/_FLUSHALL', 'unsupported_scheme'],
    ['credentials', 'http://user:pw@shop.test:PORT/page', 'credentials_in_url'],
    ['an unparsable location', 'http://[::1', 'invalid_url'],
    ['a name that does not resolve', 'http://nxdomain.test/', 'dns_failure'],
  ])('to %s (%s) → %s', async (_label, rawTarget, reason) => {
    const target = rawTarget.replace('PORT', String(shopPort)).replace('VICTIM', String(victimPort));
    const before = shopRequests.length;
    await refusal(safe.fetch(to(target)), reason);
    // Only the redirecting request reached the shop.
    expect(shopRequests.slice(before).map((request) => request.line)).toEqual([
      `GET /to?status=302&url=${encodeURIComponent(target)}`,
    ]);
  });

  it.each([301, 302, 303, 307, 308])('every redirect status is re-checked (%i to loopback)', async (status) => {
    const before = connections.length;
    await refusal(
      safe.fetch(to(`http://127.0.0.1:${victimPort}/`, status)),
      'blocked_address',
      'The address 127.0.0.1 is not a public internet address',
    );
    // At most a connection to the shop (it may reuse one); none to the victim.
    expect(connectionsSince(before).filter((record) => record.port !== shopPort)).toEqual([]);
  });

  it('a refused hop after allowed ones is still refused', async () => {
    const second = `${base}/to?url=${encodeURIComponent('http://internal.test/')}`;
    await refusal(safe.fetch(`${base}/to?url=${encodeURIComponent(second)}`), 'blocked_address');
  });

  it('too many redirects → too_many_redirects, after exactly maxRedirects hops', async () => {
    const before = shopRequests.length;
    await refusal(safe.fetch(`${base}/loop`, { maxRedirects: 3 }), 'too_many_redirects');
    expect(shopRequests.length - before).toBe(4);
    await refusal(safe.fetch(`${base}/loop`), 'too_many_redirects');
    await refusal(safe.fetch(`${base}/chain?n=3`, { maxRedirects: 3 }), 'too_many_redirects');
    expect((await safe.fetch(`${base}/chain?n=3`, { maxRedirects: 4 })).status).toBe(200);
  });

  it('maxRedirects 0 → redirect_refused, and the target is never requested', async () => {
    const before = shopRequests.length;
    await refusal(safe.fetch(`${base}/chain?n=0`, { maxRedirects: 0 }), 'redirect_refused');
    expect(shopRequests.slice(before).map((request) => request.line)).toEqual(['GET /chain?n=0']);
  });
});

describe('URLs refused up front', () => {
  it.each([
    'file:///etc/passwd',
    'gopher://example.com/',
    'data:text/plain,hello',
    'ftp://example.com/file',
    'javascript:alert(1)',
    'ws://example.com/',
    'blob:http://example.com/uuid',
  ])('%s → unsupported_scheme', async (url) => {
    const scheme = url.slice(0, url.indexOf(':'));
    await refusal(safe.fetch(url), 'unsupported_scheme', `Only http and https URLs can be fetched, not ${scheme}`);
  });

  it.each(['http://user:pw@shop.test:PORT/page', 'http://user@example.com/', 'https://:password@example.com/'])(
    '%s → credentials_in_url (even for an allowed host)',
    async (url) => {
      await refusal(
        safe.fetch(url.replace('PORT', String(shopPort))),
        'credentials_in_url',
        'URLs with embedded credentials are refused',
      );
    },
  );

  it.each([
    'http://example.com:8080/',
    'https://example.com:8443/',
    'http://example.com:22/',
    'http://example.com:25/',
    'http://example.com:6379/',
    'https://example.com:11211/',
    'http://example.com:0/',
  ])('%s → forbidden_port', async (url) => {
    await refusal(
      safe.fetch(url),
      'forbidden_port',
      `Only the standard ports 80 and 443 can be fetched, not ${new URL(url).port}`,
    );
  });

  it.each(['', 'not a url', '/relative/path', 'http://', 'http://[::1/', 'http://1.2.3.4.5/', 'http://exa mple.com/'])(
    '%j → invalid_url',
    async (url) => {
      await refusal(safe.fetch(url), 'invalid_url');
    },
  );
});

describe('size caps', () => {
  it('a declared Content-Length over the cap → too_large, without waiting for the body', async () => {
    // The server holds the connection after a few bytes: waiting for the body would end at the time cap, as a
    // timeout; only the declared length can refuse it as too large.
    await refusal(safe.fetch(`${base}/big-declared`, { maxBytes: 1024 * 1024, timeoutMs: 5_000 }), 'too_large');
  });

  it('a body without Content-Length that never ends → too_large', async () => {
    await refusal(safe.fetch(`${base}/big-stream`, { maxBytes: 256 * 1024, timeoutMs: 5_000 }), 'too_large');
  });

  it('a gzip bomb (small on the wire, huge inflated) → too_large', async () => {
    const maxBytes = 1024 * 1024;
    expect(bomb.length).toBeLessThan(maxBytes);
    await refusal(safe.fetch(`${base}/bomb`, { maxBytes, timeoutMs: 5_000 }), 'too_large');
  });

  it('the default cap is 2 MB', async () => {
    await refusal(safe.fetch(`${base}/big-declared`), 'too_large');
  });
});

describe('time caps', () => {
  // /trickle sends a byte every 50 ms: the cap is on the whole fetch, not on the silence between bytes.
  it.each(['/hang', '/trickle'])('%s with a small timeoutMs → timeout, at the cap of each fetch', async (path) => {
    await expectEndedByOwnCaps(`${base}${path}`);
  });

  it('an aborted caller signal stops the fetch', async () => {
    const before = shopRequests.length;
    const caller = new AbortController();
    // Capped at ten minutes, longer than any test: only the caller's signal can end it.
    const fetching = refusal(safe.fetch(`${base}/hang`, { timeoutMs: 600_000, signal: caller.signal }), 'timeout');
    await requestsReceived(before, 1);
    caller.abort();
    await fetching;
  });
});

describe('content type', () => {
  it.each([
    ['/json', 'application/json'],
    ['/no-type', 'no content type'],
    ['/weird-type', 'an invalid content type'],
  ])('%s with accept text/html → unsupported_content_type', async (path, sent) => {
    const error = await refusal(safe.fetch(`${base}${path}`, { accept: ['text/html'] }), 'unsupported_content_type');
    expect(error.message).toBe(`Expected text/html but the server sent ${sent}`);
  });

  it('the type is checked after redirects, on the final response', async () => {
    await refusal(
      safe.fetch(`${base}/to?url=${encodeURIComponent('/json')}`, { accept: ['text/html', 'application/xhtml+xml'] }),
      'unsupported_content_type',
    );
  });
});

describe('guardedFetch', () => {
  it('returns a standard Response', async () => {
    const response = await safe.guardedFetch(`${base}/json`, { headers: { accept: 'application/json' } });
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ marker: MARKER });
    expect(shopRequests.at(-1)?.headers.accept).toBe('application/json');
  });

  it('accepts a URL object or a Request', async () => {
    expect((await safe.guardedFetch(new URL(`${base}/page`))).status).toBe(200);
    expect((await safe.guardedFetch(new Request(`${base}/page`))).status).toBe(200);
  });

  it('does not follow redirects: redirect_refused, and the target is never requested', async () => {
    const before = shopRequests.length;
    await refusal(safe.guardedFetch(`${base}/chain?n=0`), 'redirect_refused');
    expect(shopRequests.slice(before).map((request) => request.line)).toEqual(['GET /chain?n=0']);
  });

  it('applies the same guard', async () => {
    await refusal(safe.guardedFetch('http://169.254.169.254/latest/meta-data/'), 'blocked_address');
    await refusal(safe.guardedFetch('http://internal.test/'), 'blocked_address');
    await refusal(safe.guardedFetch('file:///etc/passwd'), 'unsupported_scheme');
    await refusal(safe.guardedFetch(`${base}/bomb`), 'too_large');
  });

  it('hands back statuses without a body and decoded bodies without their old encoding headers', async () => {
    const empty = await safe.guardedFetch(`${base}/no-content`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    const gz = await safe.guardedFetch(`${base}/gzipped-page`);
    expect(gz.headers.get('content-encoding')).toBeNull();
    expect(await gz.text()).toContain(MARKER);
    const notFound = await safe.guardedFetch(`${base}/not-found`);
    expect(notFound.status).toBe(404);
  });

  it('passes an empty user agent through as the default one and honours the caller signal', async () => {
    await safe.guardedFetch(`${base}/page`, { headers: { 'user-agent': '' } });
    expect(shopRequests.at(-1)?.headers['user-agent']).toBe('guard-test/1');
    // guardedFetch caps every fetch at 5 s. Of two held requests, the second is ended by its caller's signal
    // while the first, started before it and not yet aborted, is still held: the signal ended it, not the cap.
    const before = shopRequests.length;
    let firstEnded = false;
    const [first, second] = [new AbortController(), new AbortController()];
    const firstFetch = refusal(safe.guardedFetch(`${base}/hang`, { signal: first.signal }), 'timeout').finally(() => {
      firstEnded = true;
    });
    const secondFetch = refusal(safe.guardedFetch(`${base}/hang`, { signal: second.signal }), 'timeout');
    await requestsReceived(before, 2);
    second.abort();
    await secondFetch;
    expect(firstEnded).toBe(false);
    first.abort();
    await firstFetch;
  });

  it('refuses to turn other methods into GET', async () => {
    const before = shopRequests.length;
    await expect(safe.guardedFetch(`${base}/page`, { method: 'POST', body: 'x' })).rejects.toThrow(TypeError);
    expect(shopRequests.length).toBe(before);
  });
});

describe('apiFetch', () => {
  it('sends any method, headers and body, from init or from a Request', async () => {
    const fromInit = await safe.apiFetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: '{"a":1}',
    });
    expect(await fromInit.json()).toMatchObject({
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: '{"a":1}',
    });
    const request = new Request(`${base}/echo`, { method: 'PUT', headers: { 'x-record': 'r1' }, body: 'record' });
    expect(await (await safe.apiFetch(request)).json()).toMatchObject({
      method: 'PUT',
      headers: { 'x-record': 'r1' },
      body: 'record',
    });
  });

  it('sends a FormData body as multipart/form-data, files included (uploads to Reddit and Meta)', async () => {
    const form = new FormData();
    form.set('caption', 'New in');
    form.set('source', new Blob([Buffer.from('PNGBYTES')], { type: 'image/png' }), 'still.png');
    const answer = (await (await safe.apiFetch(`${base}/echo`, { method: 'POST', body: form })).json()) as {
      headers: Record<string, string>;
      body: string;
    };
    expect(answer.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    // Read back as a server reads it: the fields and the file as they were sent.
    const parsed = await new Response(answer.body, {
      headers: { 'content-type': answer.headers['content-type']! },
    }).formData();
    expect(parsed.get('caption')).toBe('New in');
    const file = parsed.get('source') as File;
    expect(file.name).toBe('still.png');
    expect(file.type).toBe('image/png');
    expect(await file.text()).toBe('PNGBYTES');
    // A URLSearchParams body is a form, with its content type.
    const urlEncoded = (await (
      await safe.apiFetch(`${base}/echo`, { method: 'POST', body: new URLSearchParams({ sr: 'test', kind: 'self' }) })
    ).json()) as { headers: Record<string, string>; body: string };
    expect(urlEncoded.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(urlEncoded.body).toBe('sr=test&kind=self');
  });

  it('returns a redirect as it is, without following it', async () => {
    const before = shopRequests.length;
    const response = await safe.apiFetch(`${base}/chain?n=0`);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/page');
    expect(shopRequests.slice(before).map((entry) => entry.line)).toEqual(['GET /chain?n=0']);
  });

  it('applies the same guard', async () => {
    await refusal(safe.apiFetch('http://169.254.169.254/latest/meta-data/', { method: 'POST' }), 'blocked_address');
    await refusal(
      safe.apiFetch(new Request('http://internal.test/', { method: 'POST', body: 'x' })),
      'blocked_address',
    );
    await refusal(safe.apiFetch('file:///etc/passwd'), 'unsupported_scheme');
    await refusal(safe.apiFetch(`${base}/bomb`), 'too_large');
  });
});
