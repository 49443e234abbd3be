/**
 * Custom domains for a workspace's brand site. An admin adds a host name; it serves the brand site only once
 * the workspace proves control of it, by a DNS TXT record or an HTTP token file holding the domain's
 * verification token. Until then the host is unknown to the brand handler (404), so nobody can point a name
 * they do not control at somebody else's brand, or claim a name before its owner does and keep it working.
 *
 * Verification tries DNS first (works before the site is moved), then HTTP (works where DNS is managed by
 * someone else). The HTTP check goes through the SSRF guard: the host name is the customer's to choose, so it
 * must never make the platform reach inside its own network.
 *
 * Every method is scoped by workspace (another workspace's domain id is "not found") and audited. Who may call
 * them is the edge's decision (admins and owners, like API keys).
 */
import { randomBytes } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import net from 'node:net';
import { domainToASCII } from 'node:url';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Config } from '../../config.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { createSafeFetch, FetchRefusedError, type SafeFetch } from '../../net/safe-fetch.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { RepublishPort } from '../campaigns/campaigns.service.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import { CustomDomain } from './custom-domain.entity.ts';

/** The label under the domain that holds the TXT record. */
export const TXT_RECORD_LABEL = '_campaign-platform';
/** The TXT record's value is this prefix followed by the token. */
export const TXT_VALUE_PREFIX = 'campaign-platform-verification=';
/** Where the HTTP check looks for the token (the file's whole body, surrounding whitespace ignored). */
export const HTTP_TOKEN_PATH = '/.well-known/campaign-platform-verification.txt';
export const MAX_CUSTOM_DOMAINS_PER_WORKSPACE = 5;

const DNS_TIMEOUT_MS = 3_000;
const HTTP_TIMEOUT_MS = 5_000;
/** The token file holds 32 characters; anything much larger is not a token file. */
const HTTP_MAX_BYTES = 4 * 1024;
const LAST_ERROR_MAX = 500;

export type VerificationMethod = 'dns' | 'http';

export interface CustomDomainView {
  id: string;
  hostname: string;
  status: 'verified' | 'pending';
  verifiedAt: string | null;
  verifiedBy: VerificationMethod | null;
  lastCheckedAt: string | null;
  /** Why the last check failed, in words a person can act on; null once verified. */
  lastError: string | null;
  createdAt: string;
  /** What to publish to prove control: either of the two below. */
  verificationToken: string;
  txtRecord: { name: string; value: string };
  httpTokenUrl: string;
}

export interface CustomDomainVerification {
  domain: CustomDomainView;
  /** False when this check failed (`domain.lastError` says why). */
  verified: boolean;
  /** How it was proven; null when the check failed or the domain was verified before. */
  method: VerificationMethod | null;
}

/** Request facts for the audit line (the dashboard passes them; other callers may not have them). */
export interface AuditContext {
  ip?: string | null;
  requestId?: string | null;
}

export interface CustomDomainsDeps {
  config: Pick<Config, 'urls' | 'domainVerification' | 'ssrfAllowPrivateHosts'>;
  republish: RepublishPort;
  audit: AuditService;
  /** The platform's guarded fetcher, used for the HTTP check when no verification resolvers are configured. */
  safeFetch: Pick<SafeFetch, 'fetch'>;
}

/** Host names a custom domain may never be: the platform's own, and anything under the brand root domain. */
export interface ReservedHosts {
  platformHosts: readonly string[];
  brandRootDomain: string;
}

export function reservedHostsOf(config: Pick<Config, 'urls'>): ReservedHosts {
  return {
    platformHosts: [config.urls.base, config.urls.platform, config.urls.auth].map((url) =>
      new URL(url).hostname.toLowerCase(),
    ),
    brandRootDomain: config.urls.brandRootDomain.toLowerCase(),
  };
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/**
 * Normalises a host name as a person types it (case, trailing dot, Unicode → punycode) and checks that it is
 * a multi-label DNS name the platform may serve. Throws a `ValidationError` that says what is wrong.
 */
export function normalizeCustomHostname(input: string, reserved: ReservedHosts): string {
  const typed = input.trim();
  if (!typed) throw new ValidationError('Enter a host name, such as shop.example.com');
  if (/[/:@\s?#\\]/.test(typed) || typed.startsWith('[')) {
    throw new ValidationError(
      `Enter the host name only, such as shop.example.com (no http://, port, path or spaces): ${typed.slice(0, 100)}`,
    );
  }
  const withoutDot = typed.toLowerCase().replace(/\.$/, '');
  // The WHATWG host parser: IDNA to punycode, and IPv4 in any spelling (`0x7f.1`) to its dotted form.
  const ascii = domainToASCII(withoutDot);
  if (!ascii) throw new ValidationError(`${typed.slice(0, 100)} is not a valid host name`);
  if (net.isIP(ascii) || /^[0-9]+$/.test(ascii.split('.').at(-1)!)) {
    throw new ValidationError(`${typed.slice(0, 100)} is an IP address; a custom domain must be a DNS name`);
  }
  if (ascii.length > 253) throw new ValidationError('A host name has at most 253 characters');
  const labels = ascii.split('.');
  if (labels.length < 2) {
    throw new ValidationError(`${ascii} has a single label; use a full name such as shop.example.com`);
  }
  for (const label of labels) {
    if (label.length > 63) throw new ValidationError(`The label ${label.slice(0, 20)}… is longer than 63 characters`);
    if (!LABEL.test(label)) {
      throw new ValidationError(`The label "${label}" of ${ascii} may only hold letters, digits and inner hyphens`);
    }
  }
  if (reserved.platformHosts.includes(ascii)) {
    throw new ValidationError(`${ascii} is one of the platform's own host names`);
  }
  const root = reserved.brandRootDomain;
  if (ascii === root || ascii.endsWith(`.${root}`)) {
    throw new ValidationError(
      `${ascii} is under ${root}, where brand sites are already served; add a domain of your own`,
    );
  }
  return ascii;
}

export function txtRecordName(hostname: string): string {
  return `${TXT_RECORD_LABEL}.${hostname}`;
}

export function httpTokenUrl(hostname: string, port: number): string {
  return `http://${hostname}${port === 80 ? '' : `:${port}`}${HTTP_TOKEN_PATH}`;
}

export function toCustomDomainView(domain: CustomDomain, httpPort: number): CustomDomainView {
  return {
    id: domain.id,
    hostname: domain.hostname,
    status: domain.verifiedAt ? 'verified' : 'pending',
    verifiedAt: domain.verifiedAt?.toISOString() ?? null,
    verifiedBy: (domain.verifiedBy as VerificationMethod | null | undefined) ?? null,
    lastCheckedAt: domain.lastCheckedAt?.toISOString() ?? null,
    lastError: domain.lastError ?? null,
    createdAt: domain.createdAt.toISOString(),
    verificationToken: domain.verificationToken,
    txtRecord: { name: txtRecordName(domain.hostname), value: `${TXT_VALUE_PREFIX}${domain.verificationToken}` },
    httpTokenUrl: httpTokenUrl(domain.hostname, httpPort),
  };
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

export function createCustomDomainsService(deps: CustomDomainsDeps) {
  const { config } = deps;
  const reserved = reservedHostsOf(config);
  const servers = config.domainVerification.resolverServers;
  const httpPort = config.domainVerification.httpPort;
  const view = (domain: CustomDomain) => toCustomDomainView(domain, httpPort);

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

  async function find(scope: WorkspaceScope, id: string): Promise<CustomDomain> {
    // Ids fit the 40-character column: a longer one cannot exist (and is not echoed back whole).
    const domain = id.length <= 40 ? await scope.em.findOne(CustomDomain, { id, workspace: scope.workspaceId }) : null;
    if (!domain) throw new NotFoundError('Custom domain', id.slice(0, 40));
    return domain;
  }

  async function record(
    scope: WorkspaceScope,
    action: string,
    domain: { id: string; hostname: string },
    context: AuditContext,
    extra: { outcome?: 'success' | 'failed'; details?: Record<string, unknown> } = {},
  ) {
    await deps.audit.record(scope.em, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action,
      targetType: 'custom_domain',
      targetId: domain.id,
      outcome: extra.outcome ?? 'success',
      details: { hostname: domain.hostname, ...extra.details },
      ip: context.ip ?? null,
      requestId: context.requestId ?? null,
    });
  }

  return {
    async list(scope: WorkspaceScope): Promise<CustomDomainView[]> {
      const domains = await scope.em.find(
        CustomDomain,
        { workspace: scope.workspaceId },
        { orderBy: { createdAt: 'asc', id: 'asc' } },
      );
      return domains.map(view);
    },

    /** Adds a pending domain with a fresh verification token. */
    async add(scope: WorkspaceScope, hostname: string, context: AuditContext = {}): Promise<CustomDomainView> {
      const normalized = normalizeCustomHostname(String(hostname ?? ''), reserved);
      const taken = async () => {
        const existing = await scope.em.fork().findOne(CustomDomain, { hostname: normalized });
        if (!existing) return null;
        // Whose it is stays unsaid: only that it is this workspace's, or not available.
        return existing.workspace.id === scope.workspaceId
          ? new ConflictError(`${normalized} is already one of this workspace's custom domains`)
          : new ConflictError(`${normalized} is already in use by another workspace`);
      };
      const conflict = await taken();
      if (conflict) throw conflict;
      let created: CustomDomain;
      try {
        created = await scope.em.transactional(async (tx) => {
          // Serialises adds within the workspace, so two at once cannot pass the limit together.
          await tx
            .getConnection()
            .execute(
              'select pg_advisory_xact_lock(hashtext(?))',
              [`custom-domains:${scope.workspaceId}`],
              'all',
              tx.getTransactionContext(),
            );
          const count = await tx.count(CustomDomain, { workspace: scope.workspaceId });
          if (count >= MAX_CUSTOM_DOMAINS_PER_WORKSPACE) {
            throw new ConflictError(
              `A workspace can have at most ${MAX_CUSTOM_DOMAINS_PER_WORKSPACE} custom domains; remove one first`,
            );
          }
          const domain = tx.create(CustomDomain, {
            workspace: scope.workspaceId,
            hostname: normalized,
            verificationToken: randomBytes(16).toString('hex'),
          });
          await tx.flush();
          return domain;
        });
      } catch (error) {
        // Another workspace added the same name between the check above and the insert.
        if (error instanceof UniqueConstraintViolationException) throw (await taken()) ?? error;
        throw error;
      }
      await record(scope, 'custom_domain.add', created, context);
      return view(created);
    },

    /**
     * Checks the DNS TXT record, then the HTTP token file. On success the domain serves the brand site and the
     * site is republished with it as the canonical origin; on failure `lastError` says what was found.
     */
    async verify(scope: WorkspaceScope, id: string, context: AuditContext = {}): Promise<CustomDomainVerification> {
      const domain = await find(scope, id);
      if (domain.verifiedAt) return { domain: view(domain), verified: true, method: null };
      const resolver = verificationResolver(servers);
      const dns = await checkDnsTxt((name) => resolver.resolveTxt(name), domain.hostname, domain.verificationToken);
      const http = dns.ok ? null : await httpCheck(resolver, domain.hostname, domain.verificationToken);
      const method: VerificationMethod | null = dns.ok ? 'dns' : http?.ok ? 'http' : null;
      domain.lastCheckedAt = new Date();
      if (method) {
        domain.verifiedAt = domain.lastCheckedAt;
        domain.verifiedBy = method;
        domain.lastError = null;
      } else {
        const reasons = [dns, http].flatMap((check) => (check && !check.ok ? [check.error] : []));
        const message = reasons.join('; ');
        domain.lastError = message.length > LAST_ERROR_MAX ? `${message.slice(0, LAST_ERROR_MAX - 1)}…` : message;
      }
      await scope.em.flush();
      await record(scope, 'custom_domain.verify', domain, context, {
        outcome: method ? 'success' : 'failed',
        details: method ? { method } : { error: domain.lastError },
      });
      // Pages link to the first verified domain: render them again with it.
      if (method) await deps.republish.requestRepublish(scope, `custom domain ${domain.hostname} verified`);
      return { domain: view(domain), verified: method !== null, method };
    },

    /** Removes a domain; it stops serving within the brand host's cache time. */
    async remove(scope: WorkspaceScope, id: string, context: AuditContext = {}): Promise<CustomDomainView> {
      const domain = await find(scope, id);
      const removed = view(domain);
      await scope.em.remove(domain).flush();
      await record(scope, 'custom_domain.remove', removed, context, {
        details: { wasVerified: removed.status === 'verified' },
      });
      // A verified domain may have been the canonical origin of every page.
      if (removed.status === 'verified') {
        await deps.republish.requestRepublish(scope, `custom domain ${removed.hostname} removed`);
      }
      return removed;
    },
  };
}

export type CustomDomainsService = ReturnType<typeof createCustomDomainsService>;
