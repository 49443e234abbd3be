/**
 * The one way to serialise work across processes: a PostgreSQL advisory lock held until the surrounding
 * transaction ends (commit or rollback releases it, so a crashed holder never leaves it taken). Everyone who
 * must not run at once with another takes the lock of the same name first.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** Waits for, then holds until `tx` ends, the lock named `name` (hashed to PostgreSQL's 32-bit lock key). */
export async function lockForTransaction(tx: EntityManager, name: string): Promise<void> {
  await tx
    .getConnection()
    .execute('select pg_advisory_xact_lock(hashtext(?))', [name], 'all', tx.getTransactionContext());
}
