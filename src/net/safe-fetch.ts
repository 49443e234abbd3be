/**
 * Fetching from the open web without reaching inside: the SSRF guard used for product imports, for OAuth
 * client metadata documents and for the social networks' API clients (a Bluesky account's server is named by
 * its DID document, which its owner controls).
 *
 * - Only http(s) URLs, only ports 80 and 443, no credentials in the URL.
 * - The host is resolved once; every address is classified with ipaddr.js and only globally routable unicast
 *   addresses pass (no loopback, private, link-local, CGNAT, multicast, reserved, cloud-metadata, unique-local,
 *   6to4/Teredo/NAT64 embeddings, IPv6 outside 2000::/3 such as IPv4-compatible ::/96; IPv4-mapped IPv6 is
 *   judged as the IPv4 it carries). The connection is then made to the checked address (undici's `lookup`
 *   hook), so a DNS answer cannot change between check and use.
 * - IP literals in any spelling (decimal, hex, octal, short forms) are normalised by the WHATWG URL parser
 *   and judged the same way.
 * - Redirects are followed by hand, each hop re-checked, up to a cap (or not at all); credential headers
 *   (authorization, cookie) are not carried to another origin.
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
import { ValidationError } from '../errors.ts';

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

/**
 * A fetch the guard refused or that failed; `message` is safe to show (it never contains the body). The URL
 * came from the caller, so it is the caller's input that failed: every edge shows it as `validation_failed`
 * with `details.reason`.
 */
export class FetchRefusedError extends ValidationError {
  readonly reason: FetchRefusalReason;
  constructor(reason: FetchRefusalReason, message: string) {
    super(message, { reason });
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
  /** Aborts the fetch early (reported as `timeout`); the `timeoutMs` cap applies regardless. */
  signal?: AbortSignal;
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

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** True when the address is a globally routable unicast address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 becomes the IPv4 it carries
  if (parsed.range() !== 'unicast') return false;
  // ipaddr.js calls every IPv6 address outside its special ranges `unicast`, including the deprecated
  // IPv4-compatible ::/96 (`::127.0.0.1`, `::169.254.169.254`) and unallocated space; only 2000::/3 is
  // global unicast.
  return parsed.kind() === 'ipv4' || parsed.match(GLOBAL_UNICAST_V6);
}

/** An API call (a record write, an upload of a video) may take this long, and answer this much, at most. */
const API_TIMEOUT_MS = 120_000;
const API_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** Headers that must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** Statuses whose response has no body (a `Response` with a body and one of these cannot be built). */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** A media type fit to quote in a message (the header is the server's to choose). */
function describeContentType(contentType: string): string {
  if (!contentType) return 'no content type';
  return /^[a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64}$/.test(contentType)
    ? contentType
    : 'an invalid content type';
}

/**
 * What a failed connection is: the guard's own refusal (made in the lookup hook, it arrives as the cause), a
 * time-out (the signal fired), or a connection that could not be made.
 */
function connectionRefusal(error: unknown, signal: AbortSignal, url: URL, tooLong: string): FetchRefusedError {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof FetchRefusedError) return cause;
  if (signal.aborted) return new FetchRefusedError('timeout', tooLong);
  return new FetchRefusedError('connection_failed', `Could not connect to ${url.host}`);
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

export function createSafeFetch(options: SafeFetchOptions = {}) {
  const allowPrivate = new Set((options.allowPrivateHosts ?? []).map((host) => host.toLowerCase()));
  const resolve = options.resolver ?? systemResolver;

  /** Resolves and checks; the connection later goes to exactly the address returned here. */
  async function checkedAddresses(hostname: string): Promise<LookupAddress[]> {
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
    return addresses;
  }

  const dispatcher: Dispatcher = new Agent({
    connect: {
      // Every address was checked, so all of them may be tried (happy eyeballs: `localhost` answering ::1
      // first must not fail when the server listens on 127.0.0.1 only).
      autoSelectFamily: true,
      lookup: (hostname, lookupOptions, callback) => {
        checkedAddresses(hostname.toLowerCase()).then(
          (entries) => {
            if ((lookupOptions as { all?: boolean }).all) callback(null, entries as never);
            else callback(null, entries[0]!.address, entries[0]!.family);
          },
          (error: Error) => callback(error as NodeJS.ErrnoException, '', 4),
        );
      },
    },
    connectTimeout: 5_000,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });

  function checkUrl(raw: string | URL, base?: URL): URL {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      throw new FetchRefusedError('invalid_url', base ? 'The redirect location is not a valid URL' : 'Not a valid URL');
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
      // IP literals never reach the lookup hook, so they are judged here (the URL parser has already turned
      // decimal, hex and octal spellings into canonical form). This comes before the port check: a
      // non-public address is refused as such whatever the port.
      if (ipaddr.isValid(host) && !isPublicAddress(host)) {
        throw new FetchRefusedError('blocked_address', `The address ${host} is not a public internet address`);
      }
      if (url.port && url.port !== '80' && url.port !== '443') {
        throw new FetchRefusedError(
          'forbidden_port',
          `Only the standard ports 80 and 443 can be fetched, not ${url.port}`,
        );
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
    const timeout = AbortSignal.timeout(request.timeoutMs ?? 10_000);
    const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
    const accept = (request.accept ?? []).map((type) => type.toLowerCase());
    const redirects: string[] = [];
    let headers: Record<string, string> = {
      'user-agent': options.userAgent ?? 'campaign-platform/1 (+fetcher)',
      ...request.headers,
    };
    let url = checkUrl(target);
    try {
      for (;;) {
        let response;
        try {
          response = await undiciFetch(url, {
            method: request.method ?? 'GET',
            headers,
            redirect: 'manual',
            signal,
            dispatcher,
          });
        } catch (error) {
          throw connectionRefusal(error, signal, url, 'The fetch took too long and was stopped');
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
          const next = checkUrl(response.headers.get('location')!, url);
          if (next.origin !== url.origin) {
            headers = Object.fromEntries(
              Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())),
            );
          }
          redirects.push(next.toString());
          url = next;
          continue;
        }
        const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
        // Only a successful answer must be of the expected type; an error page is reported by its status.
        const successful = response.status >= 200 && response.status < 300;
        if (successful && accept.length && !accept.includes(contentType)) {
          await response.body?.cancel();
          throw new FetchRefusedError(
            'unsupported_content_type',
            `Expected ${accept.join(' or ')} but the server sent ${describeContentType(contentType)}`,
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
    const method = (init.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if (method !== 'GET' && method !== 'HEAD') {
      // Sending the request as a GET without its body would be worse than not sending it.
      throw new TypeError(`The guarded fetch sends GET and HEAD requests only, not ${method}`);
    }
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      if (key !== 'user-agent' || value) headers[key] = value;
    });
    const result = await safeFetch(url, {
      method,
      headers,
      maxRedirects: 0,
      timeoutMs: 5_000,
      maxBytes: 64 * 1024,
      signal: init.signal ?? undefined,
    });
    // The body has been decoded, so the encoding and length the server declared no longer describe it.
    const responseHeaders = new Headers();
    result.headers.forEach((value, key) => {
      if (key !== 'content-encoding' && key !== 'content-length' && key !== 'transfer-encoding') {
        responseHeaders.append(key, value);
      }
    });
    const nullBody = NULL_BODY_STATUSES.has(result.status) || method === 'HEAD';
    return new Response(nullBody ? null : new Uint8Array(result.body), {
      status: result.status,
      headers: responseHeaders,
    });
  }

  /**
   * A WHATWG `fetch` for API clients that write (the social networks' clients: uploads, record writes): any
   * method and body, the same address guard on every connection, no redirect followed (an API answering with
   * one is returned as is), bounded time and response size. A refusal or a connection failure throws
   * `FetchRefusedError`; a response of any status is returned, for the client to read.
   */
  function headerRecord(headers: Headers): Record<string, string> {
    const record: Record<string, string> = {};
    headers.forEach((value, name) => {
      record[name] = value;
    });
    return record;
  }

  async function apiFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    // A Request carries its own method, headers and body; what `init` names wins, as with fetch itself.
    const request = input instanceof Request ? input : null;
    const url = checkUrl(input instanceof Request ? input.url : input);
    let body = init.body ?? request?.body ?? null;
    const headers = new Headers((init.headers ?? request?.headers) as HeadersInit | undefined);
    // The runtime's FormData, URLSearchParams and Blob are not the bundled undici's classes: undici would send
    // them as the text "[object FormData]". Encode them here as fetch would (multipart with its boundary, a
    // url-encoded form), with the content type that goes with them.
    if (body instanceof FormData || body instanceof URLSearchParams || body instanceof Blob) {
      const encoded = new Response(body);
      const type = encoded.headers.get('content-type');
      if (type && !headers.has('content-type')) headers.set('content-type', type);
      body = new Uint8Array(await encoded.arrayBuffer());
    }
    const timeout = AbortSignal.timeout(API_TIMEOUT_MS);
    const signals = [timeout, init.signal, request?.signal].filter((signal): signal is AbortSignal => Boolean(signal));
    const signal = signals.length > 1 ? AbortSignal.any(signals) : timeout;
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      response = await undiciFetch(url, {
        method: init.method ?? request?.method ?? 'GET',
        headers: headerRecord(headers),
        body: body as never,
        ...(body ? { duplex: 'half' } : {}),
        redirect: 'manual',
        signal,
        dispatcher,
      });
    } catch (error) {
      throw connectionRefusal(error, signal, url, `${url.host} took too long to answer`);
    }
    const nullBody = NULL_BODY_STATUSES.has(response.status);
    const answer = nullBody ? null : new Uint8Array(await readCapped(response, API_MAX_RESPONSE_BYTES));
    return new Response(answer, { status: response.status, headers: response.headers as unknown as Headers });
  }

  return { fetch: safeFetch, guardedFetch, apiFetch, close: () => dispatcher.close() };
}

export type SafeFetch = ReturnType<typeof createSafeFetch>;
