/**
 * How a workspace proves it controls a host name: a DNS TXT record or an HTTP token file holding the domain's
 * verification token. DNS is tried first (it works before the site is moved), then HTTP (it works where DNS is
 * managed by someone else). The HTTP check goes through the SSRF guard: the host name is the customer's to
 * choose, so it must never make the platform reach inside its own network.
 */
import type { LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import type { Config } from '../../config.ts';
import { createSafeFetch, FetchRefusedError, type SafeFetch } from '../../net/safe-fetch.ts';

/** The label under the domain that holds the TXT record. */
export const TXT_RECORD_LABEL = '_campaign-platform';
/** The TXT record's value is this prefix followed by the token. */
export const TXT_VALUE_PREFIX = 'campaign-platform-verification=';
/** Where the HTTP check looks for the token (the file's whole body, surrounding whitespace ignored). */
export const HTTP_TOKEN_PATH = '/.well-known/campaign-platform-verification.txt';

const DNS_TIMEOUT_MS = 3_000;
const HTTP_TIMEOUT_MS = 5_000;
/** The token file holds 32 characters; anything much larger is not a token file. */
const HTTP_MAX_BYTES = 4 * 1024;

export type VerificationMethod = 'dns' | 'http';

export function txtRecordName(hostname: string): string {
  return `${TXT_RECORD_LABEL}.${hostname}`;
}

export function httpTokenUrl(hostname: string, port: number): string {
  return `http://${hostname}${port === 80 ? '' : `:${port}`}${HTTP_TOKEN_PATH}`;
}

type CheckResult = { ok: true } | { ok: false; error: string };

/** Shows a value from somebody else's server in a message: short, printable. */
function quote(value: string): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(printable.length > 60 ? `${printable.slice(0, 60)}…` : printable);
}

/** The DNS proof: a TXT record at `_campaign-platform.<host>` whose value is `campaign-platform-verification=<token>`. */
export async function checkDnsTxt(
  resolveTxt: (name: string) => Promise<string[][]>,
  hostname: string,
  token: string,
): Promise<CheckResult> {
  const name = txtRecordName(hostname);
  const expected = `${TXT_VALUE_PREFIX}${token}`;
  let records: string[][];
  try {
    records = await resolveTxt(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOTFOUND' || code === 'ENODATA') return { ok: false, error: `no TXT record ${name} found` };
    return { ok: false, error: `the DNS lookup of the TXT record ${name} failed (${code})` };
  }
  // A record longer than 255 bytes arrives in chunks; its value is their concatenation.
  const values = records.map((chunks) => chunks.join('').trim());
  if (values.includes(expected)) return { ok: true };
  if (values.length === 0) return { ok: false, error: `no TXT record ${name} found` };
  return {
    ok: false,
    error: `the TXT record ${name} holds ${values.slice(0, 2).map(quote).join(', ')}, not ${expected}`,
  };
}

/** The HTTP proof: `http://<host>/.well-known/campaign-platform-verification.txt` answers 200 with the token. */
export async function checkHttpToken(
  fetcher: Pick<SafeFetch, 'fetch'>,
  url: string,
  token: string,
): Promise<CheckResult> {
  let response;
  try {
    // No redirects: a redirect could send the check to a host the domain's owner does not control, and the
    // token must be served by the name being verified.
    response = await fetcher.fetch(url, { maxRedirects: 0, timeoutMs: HTTP_TIMEOUT_MS, maxBytes: HTTP_MAX_BYTES });
  } catch (error) {
    if (!(error instanceof FetchRefusedError)) throw error;
    const reason = error.reason === 'too_large' ? `it is larger than ${HTTP_MAX_BYTES} bytes` : error.message;
    return { ok: false, error: `the HTTP token file ${url} could not be read: ${reason}` };
  }
  if (response.status !== 200) {
    return { ok: false, error: `the HTTP token file ${url} answered ${response.status} instead of 200` };
  }
  const body = response.body.toString('utf8').trim();
  if (body === token) return { ok: true };
  return { ok: false, error: `HTTP token did not match: ${url} holds ${quote(body)}, not this domain's token` };
}

/** A `Resolver` on the configured servers (or the system's), with short timeouts: a person waits for it. */
function verificationResolver(servers: readonly string[]): Resolver {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);
  return resolver;
}

/** Address lookup through `resolver`, for the SSRF guard (which then judges every address it returns). */
function addressesVia(resolver: Resolver) {
  return async (hostname: string): Promise<LookupAddress[]> => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses: LookupAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (addresses.length === 0 && v4.status === 'rejected') throw v4.reason;
    return addresses;
  };
}

/**
 * Runs the proofs for one domain: the DNS TXT record, then (only if that failed) the HTTP token file. Answers
 * how control was proven, or null with what each check found.
 */
export function createControlProof(deps: {
  config: Pick<Config, 'domainVerification' | 'ssrfAllowPrivateHosts'>;
  /** The platform's guarded fetcher, used for the HTTP check when no verification resolvers are configured. */
  safeFetch: Pick<SafeFetch, 'fetch'>;
}) {
  const { config } = deps;
  const servers = config.domainVerification.resolverServers;
  const httpPort = config.domainVerification.httpPort;

  /**
   * The HTTP check resolves the host with the same resolvers as the TXT lookup when they are configured (so
   * both proofs read the same DNS), through a fetcher of its own that lives for one check.
   */
  async function httpCheck(resolver: Resolver, hostname: string, token: string): Promise<CheckResult> {
    const url = httpTokenUrl(hostname, httpPort);
    if (servers.length === 0) return checkHttpToken(deps.safeFetch, url, token);
    const fetcher = createSafeFetch({
      allowPrivateHosts: config.ssrfAllowPrivateHosts,
      resolver: addressesVia(resolver),
    });
    try {
      return await checkHttpToken(fetcher, url, token);
    } finally {
      await fetcher.close();
    }
  }

  return async (hostname: string, token: string): Promise<{ method: VerificationMethod | null; errors: string[] }> => {
    const resolver = verificationResolver(servers);
    const dns = await checkDnsTxt((name) => resolver.resolveTxt(name), hostname, token);
    const http = dns.ok ? null : await httpCheck(resolver, hostname, token);
    const method: VerificationMethod | null = dns.ok ? 'dns' : http?.ok ? 'http' : null;
    return { method, errors: [dns, http].flatMap((check) => (check && !check.ok ? [check.error] : [])) };
  };
}
