/**
 * oidc-provider storage in PostgreSQL: every model (clients, grants, codes, tokens, sessions, interactions)
 * is a JSON payload keyed by (model, id). Access tokens are opaque and live here, so revoking one deletes the
 * row and takes effect on the next request everywhere; a grant's tokens go together (`revokeByGrantId`).
 *
 * Tokens at rest: for most models the id *is* the credential (the access token, refresh token, code, or the
 * session cookie's value), so the row is keyed by the id's SHA-256 instead and the payload is stored without
 * it. Someone who can read the table (a backup, a replica, a leaked dump) finds nothing they can present.
 * Plain SHA-256 is enough: the ids are 256-bit random values, so there is nothing to guess, and no key means
 * the migration can hash existing rows in SQL and rotating COOKIE_SECRETS never orphans a row.
 * What stays readable is not a credential on its own: `grant_id` (a grant id buys nothing without a token; the
 * connected-apps list keys on it) and `uid` (a session's uid, carried in its tokens as `sessionUid`; the
 * session itself is reached only through the cookie). An interaction's uid is its id, so it is hashed too.
 */
import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';

type Payload = Record<string, unknown> & { grantId?: string; userCode?: string; uid?: string };

/**
 * The key a provider id is stored under: lower-case hex SHA-256 of its UTF-8 bytes — what the migration
 * Migration20261125100000_hashed_oidc_ids computes in SQL as `encode(sha256(convert_to(id, 'UTF8')), 'hex')`.
 */
export function storedOidcId(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('hex');
}

/**
 * The payload as stored: without `jti` (the id itself, given back by `find`) and without the session id an
 * interaction keeps as `session.cookie` (oidc-provider copies it there for applications; we never read it).
 */
function sealed(payload: Payload): Payload {
  const { jti: _jti, ...rest } = payload;
  const session = rest.session as Record<string, unknown> | undefined;
  if (session && typeof session === 'object' && 'cookie' in session) {
    const { cookie: _cookie, ...kept } = session;
    rest.session = kept;
  }
  return rest;
}

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
          storedOidcId(id),
          JSON.stringify(sealed(payload)),
          payload.grantId ?? null,
          payload.userCode ?? null,
          payload.uid ?? null,
          expiresIn ?? null,
          expiresIn ?? null,
        ],
      );
    }

    private async findWhere(column: 'id' | 'uid' | 'user_code', value: string): Promise<Payload | undefined> {
      // `value` is already in stored form (a hashed id, or a plain uid / user code).
      const rows = await run<{ payload: Payload; consumed: string | null }[]>(
        `select payload, extract(epoch from consumed_at)::bigint as consumed from oidc_payloads
         where model = ? and ${column} = ? and (expires_at is null or expires_at > now())`,
        [this.model, value],
      );
      const row = rows[0];
      if (!row) return undefined;
      return row.consumed ? { ...row.payload, consumed: Number(row.consumed) } : row.payload;
    }

    async find(id: string) {
      const payload = await this.findWhere('id', storedOidcId(id));
      // The provider reads the id back from `jti`; only the caller knows it, so it is restored here.
      return payload && { ...payload, jti: id };
    }

    /**
     * Sessions by uid. The stored payload has no `jti`, so the provider gets the session's contents without its
     * id; it uses sessions found this way only to compare the account and grant (never to save them).
     */
    findByUid(uid: string) {
      return this.findWhere('uid', uid);
    }

    findByUserCode(userCode: string) {
      return this.findWhere('user_code', userCode);
    }

    async consume(id: string): Promise<void> {
      await run('update oidc_payloads set consumed_at = now() where model = ? and id = ?', [
        this.model,
        storedOidcId(id),
      ]);
    }

    async destroy(id: string): Promise<void> {
      await run('delete from oidc_payloads where model = ? and id = ?', [this.model, storedOidcId(id)]);
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
