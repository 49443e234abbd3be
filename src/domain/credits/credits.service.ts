/**
 * The credit ledger: append-only, double-entry, idempotent.
 *
 * Balances are derived from the entries, never stored. Every posting runs in a transaction holding an
 * advisory lock on the balance it draws from, so that balance can never go below zero:
 *   - postings out of `available` (reserve, spend, revoke; and grants) lock the workspace;
 *   - postings out of `held` (capture, release) lock only the job they pay for (the reference): what is held
 *     for one job is drawn down by that job alone, so a running job's captures never queue behind the
 *     workspace's other jobs or its new reservations, and those never wait for the captures.
 * Every posting carries an idempotency key: posting the same key again returns the first entry (and refuses
 * if the parameters differ).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { ConflictError, InsufficientCreditsError, NotFoundError } from '../../errors.ts';
import { parseInput } from '../shared/validate.ts';
import { ACROSS_WORKSPACES, forWorkspace, ownedBy } from '../shared/scope.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';
import { CreditLedgerEntry, type CreditAccount, type CreditEntryKind } from './credit-ledger-entry.entity.ts';
import { lockForTransaction } from '../../db/transaction-lock.ts';
import { NO_METRICS, type Metrics } from '../../observability/metrics.ts';

export interface CreditBalance {
  /** Spendable now. */
  available: number;
  /** Reserved by running jobs; captured as steps complete or released when they end. */
  held: number;
  /** Spent over the workspace's lifetime. */
  spent: number;
}

/** What the ledger page filters by. */
export interface LedgerFilter {
  kind?: CreditEntryKind;
  from?: Date;
  to?: Date;
}

/** One ledger entry as the ledger page shows it: with the job and campaign it paid for, when known. */
export interface LedgerLine {
  id: string;
  at: Date;
  kind: CreditEntryKind;
  amount: number;
  from: CreditAccount;
  to: CreditAccount;
  description: string | null;
  reference: string | null;
  actor: string;
  job: { id: string; kind: string } | null;
  campaign: { id: string; name: string } | null;
}

const ROUTES: Record<CreditEntryKind, { from: CreditAccount; to: CreditAccount }> = {
  grant: { from: 'external', to: 'available' },
  reserve: { from: 'available', to: 'held' },
  capture: { from: 'held', to: 'spent' },
  release: { from: 'held', to: 'available' },
  spend: { from: 'available', to: 'spent' },
  revoke: { from: 'available', to: 'external' },
};

const PostingSchema = z.object({
  workspaceId: z.string().min(1),
  amount: z
    .number({ error: 'must be a number' })
    .int('must be a whole number of credits')
    .positive('must be positive')
    .max(100_000_000, 'must be at most 100,000,000'),
  idempotencyKey: z.string().trim().min(1, 'must not be empty').max(200),
  reference: z.string().max(200).nullish(),
  description: z.string().max(500).nullish(),
  actor: z.string().min(1).max(200),
});
export type PostingInput = z.input<typeof PostingSchema>;
type Posting = z.output<typeof PostingSchema>;

/** The advisory lock a posting takes: the balance it draws from (see the file comment). */
export function creditLockKey(
  kind: CreditEntryKind,
  workspaceId: string,
  reference: string | null | undefined,
): string {
  if (ROUTES[kind].from === 'held') {
    if (!reference) throw new Error(`A ${kind} posting needs the reference it draws from`);
    return `credits:${workspaceId}:held:${reference}`;
  }
  return `credits:${workspaceId}`;
}

/** A job's credits: reserved when it started, spent as its steps completed, released, and still held. */
export interface JobCredits {
  reserved: number;
  spent: number;
  released: number;
  held: number;
}

/** Internal signal: a release found nothing held, so there is nothing to post. */
class NothingHeld extends Error {}

export function createCreditsService(deps: { metrics?: Pick<Metrics, 'creditPosted'> } = {}) {
  const metrics = deps.metrics ?? NO_METRICS;
  /** Counts a written entry (a replayed idempotency key wrote nothing). */
  const counted = <T extends { entry: CreditLedgerEntry; replayed: boolean }>(posted: T): T => {
    if (!posted.replayed) metrics.creditPosted(posted.entry.kind, posted.entry.amount);
    return posted;
  };

  async function balanceIn(em: EntityManager, workspaceId: string): Promise<CreditBalance> {
    const rows = await em
      .getConnection()
      .execute<{ available: string | null; held: string | null; spent: string | null }[]>(
        `select
         sum(case when to_account = 'available' then amount when from_account = 'available' then -amount else 0 end) as available,
         sum(case when to_account = 'held' then amount when from_account = 'held' then -amount else 0 end) as held,
         sum(case when to_account = 'spent' then amount else 0 end) as spent
       from credit_ledger_entries where workspace_id = ?`,
        [workspaceId],
        'all',
        em.getTransactionContext(),
      );
    const row = rows[0];
    return { available: Number(row?.available ?? 0), held: Number(row?.held ?? 0), spent: Number(row?.spent ?? 0) };
  }

  /** Credits still held for a reference (a job): reserved minus captured minus released. */
  async function heldFor(em: EntityManager, workspaceId: string, reference: string): Promise<number> {
    const rows = await em.getConnection().execute<{ held: string | null }[]>(
      `select sum(case when to_account = 'held' then amount when from_account = 'held' then -amount else 0 end) as held
       from credit_ledger_entries where workspace_id = ? and reference = ?`,
      [workspaceId, reference],
      'all',
      em.getTransactionContext(),
    );
    return Number(rows[0]?.held ?? 0);
  }

  function sameParameters(entry: CreditLedgerEntry, kind: CreditEntryKind, workspaceId: string, amount: number) {
    return entry.kind === kind && entry.workspace.id === workspaceId && entry.amount === amount;
  }

  /** Runs under the posting's lock, before the insert; throws to refuse the posting. */
  type PostingCheck = (tx: EntityManager, posting: Posting) => Promise<void>;

  /**
   * Posts one entry inside the caller's transaction `tx`, under the lock of the balance it draws from.
   * `check` runs under that lock, before the insert; it throws to refuse the posting.
   */
  async function postIn(
    tx: EntityManager,
    kind: CreditEntryKind,
    data: Posting,
    check?: PostingCheck,
    /** For postings whose amount is only known under the lock (release of what remains held). */
    amountUnderLock?: () => number,
  ): Promise<{ entry: CreditLedgerEntry; replayed: boolean }> {
    await lockForTransaction(tx, creditLockKey(kind, data.workspaceId, data.reference));
    // Idempotency keys are unique across workspaces: a key another workspace used is found here and refused
    // as a conflict by `sameParameters`, instead of failing on the unique index.
    const previous = await tx.findOne(CreditLedgerEntry, { idempotencyKey: data.idempotencyKey }, ACROSS_WORKSPACES);
    if (previous) {
      if (!amountUnderLock && !sameParameters(previous, kind, data.workspaceId, data.amount)) {
        throw new ConflictError(
          `Idempotency key ${data.idempotencyKey} was already used for a different ${previous.kind} of ${previous.amount} credits`,
        );
      }
      return { entry: previous, replayed: true };
    }
    if (!(await tx.count(Workspace, { id: data.workspaceId }))) throw new NotFoundError('Workspace', data.workspaceId);
    if (check) await check(tx, data);
    const route = ROUTES[kind];
    const entry = tx.create(CreditLedgerEntry, {
      ...ownedBy(data),
      kind,
      fromAccount: route.from,
      toAccount: route.to,
      amount: amountUnderLock ? amountUnderLock() : data.amount,
      idempotencyKey: data.idempotencyKey,
      reference: data.reference ?? null,
      description: data.description ?? null,
      actor: data.actor,
    });
    await tx.flush();
    return { entry, replayed: false };
  }

  /** Posts one entry in a transaction of its own. */
  async function post(
    rootEm: EntityManager,
    kind: CreditEntryKind,
    input: PostingInput,
    check?: PostingCheck,
    amountUnderLock?: () => number,
  ): Promise<{ entry: CreditLedgerEntry; replayed: boolean }> {
    const data = parseInput(PostingSchema, input, `${kind} posting`);
    // Counted once committed.
    return counted(
      await forWorkspace(rootEm, data.workspaceId).transactional((tx) =>
        postIn(tx, kind, data, check, amountUnderLock),
      ),
    );
  }

  /** For postings out of `available`: runs under the workspace lock, so the balance it reads stays true. */
  const requireAvailable: PostingCheck = async (tx, posting) => {
    const { available } = await balanceIn(tx, posting.workspaceId);
    if (available < posting.amount) throw new InsufficientCreditsError(posting.amount, available);
  };

  /** For postings out of `held`: runs under the job's lock; never more than is still held for it. */
  const requireHeld =
    (kind: 'capture' | 'release'): PostingCheck =>
    async (tx, posting) => {
      const held = await heldFor(tx, posting.workspaceId, posting.reference!);
      if (held < posting.amount)
        throw new ConflictError(
          `Cannot ${kind} ${posting.amount} credits: only ${held} are held for ${posting.reference}`,
        );
    };

  return {
    balance: (em: EntityManager, workspaceId: string) => balanceIn(em, workspaceId),

    /** The newest ledger entries of a workspace. */
    history: (em: EntityManager, workspaceId: string, limit = 50) =>
      forWorkspace(em, workspaceId).find(
        CreditLedgerEntry,
        {},
        { orderBy: { createdAt: 'desc', id: 'desc' }, limit: Math.min(limit, 500) },
      ),
    heldFor,

    /**
     * What each reference (a job) reserved, spent (captured) and got back (released), and what it still holds,
     * from the ledger in one query. References with no entry are absent.
     */
    async byReference(
      em: EntityManager,
      workspaceId: string,
      references: readonly string[],
    ): Promise<Map<string, JobCredits>> {
      if (!references.length) return new Map();
      const rows = await em
        .getConnection()
        .execute<{ reference: string; reserved: string; spent: string; released: string; held: string }[]>(
          `select reference,
           sum(case when kind = 'reserve' then amount else 0 end) as reserved,
           sum(case when to_account = 'spent' then amount else 0 end) as spent,
           sum(case when kind = 'release' then amount else 0 end) as released,
           sum(case when to_account = 'held' then amount when from_account = 'held' then -amount else 0 end) as held
         from credit_ledger_entries where workspace_id = ? and reference in (${references.map(() => '?').join(', ')})
         group by reference`,
          [workspaceId, ...references],
          'all',
          em.getTransactionContext(),
        );
      return new Map(
        rows.map((row) => [
          row.reference,
          {
            reserved: Number(row.reserved),
            spent: Number(row.spent),
            released: Number(row.released),
            held: Number(row.held),
          },
        ]),
      );
    },

    /**
     * A page of the ledger, newest first, keyset-paginated by (createdAt, id) and narrowed by kind and time
     * (`from` inclusive, `to` exclusive), with what each entry paid for: the job it references (its kind) and
     * the campaign that job worked on, when there is one.
     */
    async ledger(
      em: EntityManager,
      workspaceId: string,
      options: { limit?: number; before?: { createdAt: Date; id: string }; filter?: LedgerFilter } = {},
    ): Promise<LedgerLine[]> {
      const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
      const filter = options.filter ?? {};
      const where: Record<string, unknown> = {};
      if (filter.kind) where.kind = filter.kind;
      if (filter.from || filter.to) {
        where.createdAt = { ...(filter.from ? { $gte: filter.from } : {}), ...(filter.to ? { $lt: filter.to } : {}) };
      }
      if (options.before) {
        where.$or = [
          { createdAt: { $lt: options.before.createdAt } },
          { createdAt: options.before.createdAt, id: { $lt: options.before.id } },
        ];
      }
      const scoped = forWorkspace(em, workspaceId);
      const entries = await scoped.find(CreditLedgerEntry, where, {
        orderBy: { createdAt: 'desc', id: 'desc' },
        limit,
      });
      const jobIds = [...new Set(entries.map((e) => e.reference).filter((r): r is string => !!r?.startsWith('job_')))];
      const jobs = jobIds.length
        ? await scoped
            .getConnection()
            .execute<{ id: string; kind: string; campaign_id: string | null; campaign_name: string | null }[]>(
              // The job ids travel as one comma-joined parameter (ids never hold a comma).
              `select j.id, j.kind, c.id as campaign_id, c.name as campaign_name
               from jobs j left join campaigns c on c.id = j.subject_id and c.workspace_id = j.workspace_id
              where j.workspace_id = ? and j.id = any(string_to_array(?, ','))`,
              [workspaceId, jobIds.join(',')],
            )
        : [];
      const jobOf = new Map(jobs.map((j) => [j.id, j]));
      return entries.map((entry) => {
        const job = entry.reference ? jobOf.get(entry.reference) : undefined;
        return {
          id: entry.id,
          at: entry.createdAt,
          kind: entry.kind,
          amount: entry.amount,
          from: entry.fromAccount,
          to: entry.toAccount,
          description: entry.description ?? null,
          reference: entry.reference ?? null,
          actor: entry.actor,
          job: job ? { id: job.id, kind: job.kind } : null,
          campaign: job?.campaign_id ? { id: job.campaign_id, name: job.campaign_name ?? '' } : null,
        };
      });
    },

    /** Operator grant (credits enter the workspace). */
    grant: (em: EntityManager, input: PostingInput) => post(em, 'grant', input),

    /** Operator revoke: takes available credits back out; never below zero. */
    revoke: (em: EntityManager, input: PostingInput) => post(em, 'revoke', input, requireAvailable),

    /** A one-shot paid call. */
    spend: (em: EntityManager, input: PostingInput) => post(em, 'spend', input, requireAvailable),

    /** Holds credits for a job at its start; refused when the balance does not cover it. */
    reserve: (em: EntityManager, input: PostingInput & { reference: string }) =>
      post(em, 'reserve', input, requireAvailable),

    /**
     * `reserve` inside the caller's transaction (a quote's redemption and its reservation commit together).
     * Counted when written: a caller's transaction that then rolls back leaves it counted.
     */
    reserveIn: async (tx: EntityManager, input: PostingInput & { reference: string }) =>
      counted(await postIn(tx, 'reserve', parseInput(PostingSchema, input, 'reserve posting'), requireAvailable)),

    /** Turns held credits into spent ones as a step completes; never more than is still held. */
    capture: (em: EntityManager, input: PostingInput & { reference: string }) =>
      post(em, 'capture', input, requireHeld('capture')),

    /**
     * Returns part of what is held for a reference (a reservation that turned out not to be needed, e.g. a
     * revision the workflow refused); never more than is still held.
     */
    release: (em: EntityManager, input: PostingInput & { reference: string }) =>
      post(em, 'release', input, requireHeld('release')),

    /**
     * Returns whatever is still held for a reference to the available balance. Idempotent, and a no-op when
     * nothing is held (returns null then).
     */
    async releaseRemaining(
      em: EntityManager,
      input: Omit<PostingInput, 'amount'> & { reference: string },
    ): Promise<{ entry: CreditLedgerEntry; replayed: boolean } | null> {
      // The amount is whatever is held at the moment of posting, so it is computed under the job's lock.
      let amount = 0;
      try {
        return await post(
          em,
          'release',
          { ...input, amount: 1 },
          async (tx) => {
            amount = await heldFor(tx, input.workspaceId, input.reference);
            if (amount <= 0) throw new NothingHeld();
          },
          () => amount,
        );
      } catch (error) {
        if (error instanceof NothingHeld) return null;
        throw error;
      }
    },
  };
}

export type CreditsService = ReturnType<typeof createCreditsService>;
