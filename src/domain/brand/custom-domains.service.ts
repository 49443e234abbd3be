/**
 * Custom domains for a workspace's brand site. An admin adds a host name; it serves the brand site only once
 * the workspace proves control of it, by a DNS TXT record or an HTTP token file holding the domain's
 * verification token. Until then the host is unknown to the brand handler (404), so nobody can point a name
 * they do not control at somebody else's brand, or claim a name before its owner does and keep it working.
 *
 * How control is proven (DNS first, then HTTP through the SSRF guard) is `domain-proofs.ts`.
 *
 * Every method is scoped by workspace (another workspace's domain id is "not found") and audited. Who may call
 * them is the edge's decision (admins and owners, like API keys).
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { domainToASCII } from 'node:url';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Config } from '../../config.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { SafeFetch } from '../../net/safe-fetch.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { RepublishPort } from '../campaigns/campaigns.service.ts';
import { ACROSS_WORKSPACES, ownedBy, type WorkspaceScope } from '../shared/scope.ts';
import { CustomDomain } from './custom-domain.entity.ts';
import {
  createControlProof,
  httpTokenUrl,
  TXT_VALUE_PREFIX,
  txtRecordName,
  type VerificationMethod,
} from './domain-proofs.ts';
import { lockForTransaction } from '../../db/transaction-lock.ts';

export const MAX_CUSTOM_DOMAINS_PER_WORKSPACE = 5;

const LAST_ERROR_MAX = 500;

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

export function createCustomDomainsService(deps: CustomDomainsDeps) {
  const { config } = deps;
  const reserved = reservedHostsOf(config);
  const httpPort = config.domainVerification.httpPort;
  const proveControl = createControlProof(deps);
  const view = (domain: CustomDomain) => toCustomDomainView(domain, httpPort);

  async function find(scope: WorkspaceScope, id: string): Promise<CustomDomain> {
    // Ids fit the 40-character column: a longer one cannot exist (and is not echoed back whole).
    const domain = id.length <= 40 ? await scope.em.findOne(CustomDomain, { id }) : null;
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
      const domains = await scope.em.find(CustomDomain, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
      return domains.map(view);
    },

    /** Adds a pending domain with a fresh verification token. */
    async add(scope: WorkspaceScope, hostname: string, context: AuditContext = {}): Promise<CustomDomainView> {
      const normalized = normalizeCustomHostname(String(hostname ?? ''), reserved);
      const taken = async () => {
        // A host name belongs to one workspace on the whole platform, so this one look sees them all.
        const existing = await scope.em.fork().findOne(CustomDomain, { hostname: normalized }, ACROSS_WORKSPACES);
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
          await lockForTransaction(tx, `custom-domains:${scope.workspaceId}`);
          const count = await tx.count(CustomDomain, {});
          if (count >= MAX_CUSTOM_DOMAINS_PER_WORKSPACE) {
            throw new ConflictError(
              `A workspace can have at most ${MAX_CUSTOM_DOMAINS_PER_WORKSPACE} custom domains; remove one first`,
            );
          }
          const domain = tx.create(CustomDomain, {
            ...ownedBy(scope),
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
      const { method, errors } = await proveControl(domain.hostname, domain.verificationToken);
      domain.lastCheckedAt = new Date();
      if (method) {
        domain.verifiedAt = domain.lastCheckedAt;
        domain.verifiedBy = method;
        domain.lastError = null;
      } else {
        const message = errors.join('; ');
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
