/**
 * oidc-provider storage in PostgreSQL: every model (clients, grants, codes, tokens, sessions, interactions)
 * is a JSON payload keyed by (model, id). Access tokens are opaque and live here, so revoking one deletes the
 * row and takes effect on the next request everywhere; a grant's tokens go together (`revokeByGrantId`).
 */
import type { MikroORM } from '@mikro-orm/postgresql';

type Payload = Record<string, unknown> & { grantId?: string; userCode?: string; uid?: string };

export function createAdapterFactory(orm: MikroORM) {
  const run = <T>(sql: string, params: unknown[]): Promise<T> =>
    orm.em.getConnection().execute(sql, params as never[], 'all') as unknown as Promise<T>;

  return class PostgresAdapter {
    readonly model: string;

    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      await run(
        `insert into oidc_payloads (model, id, payload, grant_id, user_code, uid, expires_at)
         values (?, ?, ?, ?, ?, ?, case when ?::int is null then null else now() + ?::int * interval '1 second' end)
         on conflict (model, id) do update set payload = excluded.payload, grant_id = excluded.grant_id,
           user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
        [
          this.model,
          id,
          JSON.stringify(payload),
          payload.grantId ?? null,
          payload.userCode ?? null,
          payload.uid ?? null,
          expiresIn ?? null,
          expiresIn ?? null,
        ],
      );
    }

    private async findWhere(column: 'id' | 'uid' | 'user_code', value: string): Promise<Payload | undefined> {
      const rows = await run<{ payload: Payload; consumed: string | null }[]>(
        `select payload, extract(epoch from consumed_at)::bigint as consumed from oidc_payloads
         where model = ? and ${column} = ? and (expires_at is null or expires_at > now())`,
        [this.model, value],
      );
      const row = rows[0];
      if (!row) return undefined;
      return row.consumed ? { ...row.payload, consumed: Number(row.consumed) } : row.payload;
    }

    find(id: string) {
      return this.findWhere('id', id);
    }

    findByUid(uid: string) {
      return this.findWhere('uid', uid);
    }

    findByUserCode(userCode: string) {
      return this.findWhere('user_code', userCode);
    }

    async consume(id: string): Promise<void> {
      await run('update oidc_payloads set consumed_at = now() where model = ? and id = ?', [this.model, id]);
    }

    async destroy(id: string): Promise<void> {
      await run('delete from oidc_payloads where model = ? and id = ?', [this.model, id]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await run('delete from oidc_payloads where grant_id = ?', [grantId]);
    }
  };
}

/** Removes payloads that expired more than a day ago (they are already invisible to `find`). */
export async function pruneExpiredPayloads(orm: MikroORM): Promise<void> {
  await orm.em
    .getConnection()
    .execute("delete from oidc_payloads where expires_at < now() - interval '1 day'", [], 'run');
}
