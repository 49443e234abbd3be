import { Migration } from '@mikro-orm/migrations';

/**
 * OAuth state at rest no longer holds usable credentials (src/auth/oidc/adapter.ts): every row of
 * `oidc_payloads` is keyed by the SHA-256 (lower-case hex of the UTF-8 bytes) of the provider's id — which
 * for access tokens, refresh tokens, codes and sessions is the token or cookie value itself — and the payload
 * loses the copies of it (`jti`, and an interaction's `session.cookie`). Existing rows are rewritten in place,
 * so tokens, clients and sign-ins issued before the upgrade keep working. `sha256()` is built into
 * PostgreSQL (11+); the adapter's `storedOidcId` computes the same value. Rows already keyed by
 * a hash (64 hex digits — no provider id has that shape: tokens are 43 base64url characters, client ids
 * `mcp_` and 32 hex digits) are left alone, so running it again changes nothing.
 */
export class Migration20261125100000_hashed_oidc_ids extends Migration {
  override name = 'Migration20261125100000_hashed_oidc_ids';

  override up(): void | Promise<void> {
    this.addSql(
      `update "oidc_payloads"
         set "id" = encode(sha256(convert_to("id", 'UTF8')), 'hex'),
             "payload" = ("payload" - 'jti') #- '{session,cookie}'
         where "id" !~ '^[0-9a-f]{64}$';`,
    );
  }

  override down(): void | Promise<void> {
    // A hash cannot be turned back into the token; rows written by the old code would be unreadable here.
    throw new Error(
      'Migration20261125100000_hashed_oidc_ids cannot be reverted: the original OAuth ids are not stored. ' +
        'To go back, delete the rows of oidc_payloads (people sign in again, clients register again).',
    );
  }
}
