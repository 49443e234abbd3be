import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';
import type { PriceLine } from './price-list.ts';

/**
 * A price offer for one paid call: what it costs and what it covers, bound to the workspace, the operation and
 * a hash of the call's arguments. Redeeming it (the same call again with `quoteId`) reserves the credits; a
 * quote is single-use and expires.
 */
export const CreditQuoteSchema = defineEntity({
  name: 'CreditQuote',
  tableName: 'credit_quotes',
  properties: {
    id: idProperty('quote'),
    workspace: () => p.manyToOne(Workspace).ref(),
    /** `<tool>.<selector value>`, e.g. `generate_campaign.start`. */
    operation: p.string().length(80),
    /** SHA-256 (hex) of the canonical JSON of the call's arguments, without `quoteId`. */
    argumentsHash: p.string().length(64),
    credits: p.integer(),
    lines: p.json<PriceLine[]>(),
    expiresAt: p.datetime().columnType('timestamptz'),
    usedAt: p.datetime().columnType('timestamptz').nullable(),
    /** What the redeemed quote paid for (a job id). */
    reference: p.string().length(200).nullable(),
    createdBy: p.string().length(200),
    createdAt: createdAtProperty(),
  },
  indexes: [{ properties: ['workspace', 'createdAt'] }],
  checks: [{ name: 'credit_quotes_credits_not_negative', expression: 'credits >= 0' }],
});
export class CreditQuote extends CreditQuoteSchema.class {}
CreditQuoteSchema.setClass(CreditQuote);
