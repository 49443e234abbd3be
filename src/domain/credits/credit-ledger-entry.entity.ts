import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';

/**
 * Credit accounts of a workspace. Every entry moves `amount` credits from one account to another, so the
 * ledger is double-entry by construction (the sum over all accounts is always zero):
 *
 * - grant:    external  → available
 * - reserve:  available → held        (a paid job starts)
 * - capture:  held      → spent       (a step of that job completed)
 * - release:  held      → available   (the job failed or was cancelled; unused credits come back)
 * - spend:    available → spent       (a one-shot paid call)
 * - revoke:   available → external    (an operator takes credits back)
 */
export const CREDIT_ACCOUNTS = ['external', 'available', 'held', 'spent'] as const;
export type CreditAccount = (typeof CREDIT_ACCOUNTS)[number];

export const CREDIT_ENTRY_KINDS = ['grant', 'reserve', 'capture', 'release', 'spend', 'revoke'] as const;
export type CreditEntryKind = (typeof CREDIT_ENTRY_KINDS)[number];

/** Append-only and double-entry, enforced by the database: positive amounts, two different accounts, and a
 * trigger that rejects UPDATE and DELETE (corrections are new entries, never edits). */
export const CreditLedgerEntrySchema = defineEntity({
  name: 'CreditLedgerEntry',
  tableName: 'credit_ledger_entries',
  properties: {
    id: idProperty('creditEntry'),
    workspace: () => p.manyToOne(Workspace).ref(),
    kind: p.enum(CREDIT_ENTRY_KINDS).nativeEnumName('credit_entry_kind'),
    fromAccount: p.enum(CREDIT_ACCOUNTS).nativeEnumName('credit_account'),
    toAccount: p.enum(CREDIT_ACCOUNTS).nativeEnumName('credit_account'),
    /** Always positive; the direction is given by the two accounts. */
    amount: p.integer(),
    /**
     * Unique across the ledger. Paid jobs derive it inside the workflow (`<workflowId>:<step>`), so an
     * activity that runs twice writes the entry once.
     */
    idempotencyKey: p.string().length(200).unique(),
    /** What the entry is about: a job id, a quote id, an operator note. */
    reference: p.string().length(200).nullable(),
    description: p.string().length(500).nullable(),
    /** Who caused it: `user:<id>`, `key:<id>`, `client:<id>`, `operator`, `workflow:<id>`. */
    actor: p.string().length(200),
    createdAt: createdAtProperty(),
  },
  // The ledger page filters by kind and pages by time: (workspace, kind, createdAt) makes that an index range.
  indexes: [
    { properties: ['workspace', 'createdAt'] },
    { properties: ['workspace', 'reference'] },
    { properties: ['workspace', 'kind', 'createdAt'] },
  ],
  checks: [
    { name: 'credit_ledger_entries_amount_positive', expression: 'amount > 0' },
    { name: 'credit_ledger_entries_accounts_differ', expression: 'from_account <> to_account' },
  ],
  triggers: [
    {
      name: 'credit_ledger_entries_append_only',
      timing: 'before',
      events: ['update', 'delete'],
      forEach: 'row',
      body: "raise exception 'credit_ledger_entries is append-only';",
    },
  ],
});
export class CreditLedgerEntry extends CreditLedgerEntrySchema.class {}
CreditLedgerEntrySchema.setClass(CreditLedgerEntry);
