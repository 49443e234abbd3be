/**
 * Quote, then commit. A credit-spending call without a quote spends nothing and returns a quote (credits,
 * what it covers, the arguments hash, the expiry) for the agent to show the user; the same call with the
 * quote id redeems it: the quote is marked used and the credits are reserved for the job, or the call is
 * refused with a clear error and nothing starts.
 *
 * Redemption is one transaction: the quote's row lock, its use and the reservation commit together or not at
 * all. Single use is enforced by that row lock and, independently, by the reservation's idempotency key
 * (`quote:<id>`).
 */
import { createHash } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { ownedBy, type WorkspaceScope } from '../shared/scope.ts';
import { CreditQuote } from './credit-quote.entity.ts';
import type { CreditsService } from './credits.service.ts';
import { totalOf, type PriceLine } from './price-list.ts';

export const QUOTE_TTL_MS = 15 * 60 * 1000;

export interface QuoteView {
  id: string;
  operation: string;
  credits: number;
  covers: PriceLine[];
  argumentsHash: string;
  expiresAt: string;
  /** The workspace's available credits when the quote was made, and whether they cover it. */
  available: number;
  sufficient: boolean;
}

/** Canonical JSON: object keys sorted, `undefined` dropped, so equal arguments hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function argumentsHash(args: Record<string, unknown>): string {
  const { quoteId: _ignored, ...rest } = args;
  return createHash('sha256').update(canonicalJson(rest)).digest('hex');
}

export function createQuotesService(deps: { credits: CreditsService; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());

  type Redemption = { quoteId: string; operation: string; args: Record<string, unknown>; reference: string };

  /**
   * Redeems a quote inside the caller's transaction `tx`: the quote is locked, checked, marked used and its
   * credits reserved under `reference` (the job they pay for), all committing or rolling back with `tx`.
   */
  async function redeemIn(tx: EntityManager, scope: WorkspaceScope, input: Redemption): Promise<CreditQuote> {
    const hash = argumentsHash(input.args);
    const found = await tx.findOne(CreditQuote, { id: input.quoteId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!found) throw new NotFoundError('Quote', input.quoteId);
    if (found.operation !== input.operation) {
      throw new ValidationError(
        `Quote ${found.id} is for ${found.operation}, not ${input.operation}; ask for a new quote by calling without quoteId`,
      );
    }
    if (found.usedAt)
      throw new ConflictError(
        `Quote ${found.id} was already used; a quote pays for one call only. Call without quoteId for a new quote`,
      );
    if (found.expiresAt.getTime() <= now().getTime()) {
      throw new ConflictError(
        `Quote ${found.id} expired at ${found.expiresAt.toISOString()}; call without quoteId for a new quote`,
      );
    }
    if (found.argumentsHash !== hash) {
      throw new ValidationError(
        `The arguments differ from the ones quote ${found.id} was made for; repeat the quoted call exactly, or call without quoteId for a new quote`,
      );
    }
    found.usedAt = now();
    found.reference = input.reference;
    if (found.credits === 0) {
      await tx.flush();
      return found;
    }
    // The reservation's flush also writes the quote's use.
    const { replayed } = await deps.credits.reserveIn(tx, {
      workspaceId: scope.workspaceId,
      amount: found.credits,
      idempotencyKey: `quote:${found.id}`,
      reference: input.reference,
      description: `${found.operation} (quote ${found.id})`,
      actor: scope.actor,
    });
    if (replayed) throw new ConflictError(`Quote ${found.id} was already used`);
    return found;
  }

  return {
    async quote(
      scope: WorkspaceScope,
      operation: string,
      args: Record<string, unknown>,
      lines: PriceLine[],
    ): Promise<QuoteView> {
      const credits = totalOf(lines);
      const quote = scope.em.create(CreditQuote, {
        ...ownedBy(scope),
        operation,
        argumentsHash: argumentsHash(args),
        credits,
        lines,
        expiresAt: new Date(now().getTime() + QUOTE_TTL_MS),
        usedAt: null,
        reference: null,
        createdBy: scope.actor,
      });
      await scope.em.flush();
      const { available } = await deps.credits.balance(scope.em, scope.workspaceId);
      return {
        id: quote.id,
        operation,
        credits,
        covers: lines,
        argumentsHash: quote.argumentsHash,
        expiresAt: quote.expiresAt.toISOString(),
        available,
        sufficient: available >= credits,
      };
    },

    /**
     * Redeems a quote for `operation` with these exact arguments and reserves its credits under `reference`
     * (the job the credits pay for), in one transaction: the quote is marked used and its credits reserved
     * together, or neither happens (an insufficient balance leaves the quote unused, so the same call works
     * once credits are added). Throws a clear error, spending nothing, when the quote is unknown, for another
     * call, used, expired, or the balance does not cover it.
     */
    async redeem(scope: WorkspaceScope, input: Redemption): Promise<{ quote: CreditQuote; reserved: number }> {
      const quote = await scope.em.fork().transactional((tx) => redeemIn(tx, scope, input));
      return { quote, reserved: quote.credits };
    },

    redeemIn,
  };
}

export type QuotesService = ReturnType<typeof createQuotesService>;
