/**
 * Fetching from the open web without reaching inside: the SSRF guard used for product imports and for OAuth
 * client metadata documents.
 *
 * - Only http(s) URLs, only ports 80 and 443, no credentials in the URL.
 * - The host is resolved once; every address is classified with ipaddr.js and only globally routable unicast
 *   addresses pass (no loopback, private, link-local, CGNAT, multicast, reserved, cloud-metadata, unique-local,
 *   6to4/Teredo/NAT64 embeddings; IPv4-mapped IPv6 is judged as the IPv4 it carries). The connection is then
 *   made to the checked address (undici's `lookup` hook), so a DNS answer cannot change between check and use.
 * - IP literals in any spelling (decimal, hex, octal, short forms) are normalised by the WHATWG URL parser
 *   and judged the same way.
 * - Redirects are followed by hand, each hop re-checked, up to a cap (or not at all).
 * - Total time, body size and (by the caller) content type are capped; the body of a refused response is
 *   never returned.
 *
 * Operators can let named hosts reach private networks (`allowPrivateHosts`), e.g. an internal catalogue;
 * tests use that for their loopback servers.
 */
import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici';

export type FetchRefusalReason =
  | 'invalid_url'
  | 'unsupported_scheme'
  | 'forbidden_port'
  | 'credentials_in_url'
  | 'blocked_address'
  | 'dns_failure'
  | 'too_many_redirects'
  | 'redirect_refused'
  | 'timeout'
  | 'too_large'
  | 'connection_failed'
  | 'bad_status'
  | 'unsupported_content_type';

/** A fetch the guard refused or that failed; `message` is safe to show (it never contains the body). */
export class FetchRefusedError extends Error {
  readonly reason: FetchRefusalReason;
  constructor(reason: FetchRefusalReason, message: string) {
    super(message);
    this.name = 'FetchRefusedError';
    this.reason = reason;
  }
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface SafeFetchOptions {
  /** Hostnames allowed to resolve to non-public addresses and to use other ports. */
  allowPrivateHosts?: readonly string[];
  /** DNS resolution (tests inject a table; production uses the system resolver). */
  resolver?: Resolver;
  userAgent?: string;
}

export interface SafeRequest {
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  /** Redirects to follow (each re-checked); 0 refuses any redirect. */
  maxRedirects?: number;
  timeoutMs?: number;
  maxBytes?: number;
  /** Media types accepted (essence, e.g. `text/html`); empty accepts any. */
  accept?: readonly string[];
}

export interface SafeResponse {
  url: string;
  status: number;
  headers: Headers;
  contentType: string;
  body: Buffer;
  redirects: string[];
}

const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** True when the address is a globally routable unicast address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 becomes the IPv4 it carries
  return parsed.range() === 'unicast';
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

export function createSafeFetch(options: SafeFetchOptions = {}) {
  const allowPrivate = new Set((options.allowPrivateHosts ?? []).map((host) => host.toLowerCase()));
  const resolve = options.resolver ?? systemResolver;

  /** Resolves and checks; the connection later goes to exactly the address returned here. */
  async function checkedAddress(hostname: string): Promise<LookupAddress> {
    let addresses: LookupAddress[];
    try {
      addresses = await resolve(hostname);
    } catch {
      throw new FetchRefusedError('dns_failure', `The host ${hostname} could not be resolved`);
    }
    if (addresses.length === 0) throw new FetchRefusedError('dns_failure', `The host ${hostname} has no address`);
    if (!allowPrivate.has(hostname)) {
      const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
      if (blocked) {
        throw new FetchRefusedError(
          'blocked_address',
          `The host ${hostname} resolves to a non-public address; only public internet addresses can be fetched`,
        );
      }
    }
    return addresses[0]!;
  }

  const dispatcher: Dispatcher = new Agent({
    connect: {
      lookup: (hostname, lookupOptions, callback) => {
        checkedAddress(hostname.toLowerCase()).then(
          (entry) => {
            if ((lookupOptions as { all?: boolean }).all) callback(null, [entry] as never);
            else callback(null, entry.address, entry.family);
          },
          (error: Error) => callback(error as NodeJS.ErrnoException, '', 4),
        );
      },
    },
    connectTimeout: 5_000,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });

  function checkUrl(raw: string | URL): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new FetchRefusedError('invalid_url', 'Not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new FetchRefusedError(
        'unsupported_scheme',
        `Only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}`,
      );
    }
    if (url.username || url.password) {
      throw new FetchRefusedError('credentials_in_url', 'URLs with embedded credentials are refused');
    }
    const host = hostOf(url);
    if (!allowPrivate.has(host)) {
      if (url.port && url.port !== '80' && url.port !== '443') {
        throw new FetchRefusedError(
          'forbidden_port',
          `Only the standard ports 80 and 443 can be fetched, not ${url.port}`,
        );
      }
      // IP literals never reach the lookup hook, so they are judged here (the URL parser has already turned
      // decimal, hex and octal spellings into canonical form).
      if (ipaddr.isValid(host) && !isPublicAddress(host)) {
        throw new FetchRefusedError('blocked_address', `The address ${host} is not a public internet address`);
      }
    }
    return url;
  }

  async function readCapped(response: Awaited<ReturnType<typeof undiciFetch>>, maxBytes: number): Promise<Buffer> {
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel();
      throw new FetchRefusedError('too_large', `The response is larger than ${maxBytes} bytes`);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    if (response.body) {
      for await (const chunk of response.body) {
        total += chunk.byteLength;
        if (total > maxBytes) {
          throw new FetchRefusedError('too_large', `The response is larger than ${maxBytes} bytes`);
        }
        chunks.push(Buffer.from(chunk));
      }
    }
    return Buffer.concat(chunks);
  }

  async function safeFetch(target: string | URL, request: SafeRequest = {}): Promise<SafeResponse> {
    const maxRedirects = request.maxRedirects ?? 5;
    const maxBytes = request.maxBytes ?? 2 * 1024 * 1024;
    const signal = AbortSignal.timeout(request.timeoutMs ?? 10_000);
    const redirects: string[] = [];
    let url = checkUrl(target);
    try {
      for (;;) {
        let response;
        try {
          response = await undiciFetch(url, {
            method: request.method ?? 'GET',
            headers: { 'user-agent': options.userAgent ?? 'campaign-platform/1 (+fetcher)', ...request.headers },
            redirect: 'manual',
            signal,
            dispatcher,
          });
        } catch (error) {
          const cause = (error as { cause?: unknown }).cause;
          if (cause instanceof FetchRefusedError) throw cause;
          if (signal.aborted) throw new FetchRefusedError('timeout', 'The fetch took too long and was stopped');
          throw new FetchRefusedError('connection_failed', `Could not connect to ${url.host}`);
        }
        if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
          await response.body?.cancel();
          if (redirects.length >= maxRedirects) {
            throw maxRedirects === 0
              ? new FetchRefusedError(
                  'redirect_refused',
                  'The URL answered with a redirect, and redirects are not followed here',
                )
              : new FetchRefusedError('too_many_redirects', `More than ${maxRedirects} redirects`);
          }
          const next = checkUrl(new URL(response.headers.get('location')!, url));
          redirects.push(next.toString());
          url = next;
          continue;
        }
        const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
        if (request.accept?.length && !request.accept.includes(contentType)) {
          await response.body?.cancel();
          throw new FetchRefusedError(
            'unsupported_content_type',
            `Expected ${request.accept.join(' or ')} but the server sent ${contentType || 'no content type'}`,
          );
        }
        const body = await readCapped(response, maxBytes);
        return {
          url: url.toString(),
          status: response.status,
          headers: response.headers as unknown as Headers,
          contentType,
          body,
          redirects,
        };
      }
    } catch (error) {
      if (error instanceof FetchRefusedError) throw error;
      if (signal.aborted) throw new FetchRefusedError('timeout', 'The fetch took too long and was stopped');
      throw new FetchRefusedError('connection_failed', `Could not fetch ${url.host}`);
    }
  }

  /**
   * A WHATWG-shaped `fetch` for libraries that take one (oidc-provider's CIMD resolution): same guard, no
   * redirects followed, bounded size and time. Returns a standard `Response`.
   */
  async function guardedFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    const url = typeof input === 'string' || input instanceof URL ? input : input.url;
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      if (key !== 'user-agent' || value) headers[key] = value;
    });
    const result = await safeFetch(url, { headers, maxRedirects: 0, timeoutMs: 5_000, maxBytes: 64 * 1024 });
    return new Response(new Uint8Array(result.body), { status: result.status, headers: result.headers });
  }

  return { fetch: safeFetch, guardedFetch, close: () => dispatcher.close() };
}

export type SafeFetch = ReturnType<typeof createSafeFetch>;
