/**
 * MikroORM on PostgreSQL: one factory for the API, the worker, the CLI and the tests.
 */
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import pg from 'pg';
import { parse as parseArray } from 'postgres-array';
import { ENTITY_SCHEMAS } from './entities.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { workspaceFilter } from '../domain/shared/scope.ts';

export interface OrmOptions {
  url: string;
  poolMax?: number;
  /** Log every SQL statement (development aid). */
  debug?: boolean;
}

export function ormOptions(options: OrmOptions): Options {
  return {
    clientUrl: options.url,
    entities: ENTITY_SCHEMAS,
    extensions: [Migrator],
    // Timestamps are timestamptz and always read and written in UTC.
    forceUtcTimezone: true,
    debug: options.debug ?? false,
    pool: { min: 0, max: options.poolMax ?? 10 },
    // The global EntityManager is never used for work: every request and every activity forks its own.
    allowGlobalContext: false,
    // Workspace scoping (domain/shared/scope.ts): every query of workspace-owned data is limited to the scope's
    // workspace, and refused outside a scope unless it says ACROSS_WORKSPACES.
    filters: { [workspaceFilter.name]: workspaceFilter },
    // The filter applies to the entity queried, not to its references: loading a variant must not join its
    // campaign just to re-check a workspace the variant row already carries.
    autoJoinRefsForFilters: false,
    // Site events live in a table partitioned by time, created and maintained in SQL (see the analytics
    // migration); the schema diff must neither recreate it as a plain table nor drop its partitions or the
    // hand-written partition function.
    schemaGenerator: { skipTables: [/^analytics_/], ignoreRoutines: true },
    migrations: {
      path: 'src/db/migrations',
      migrationsList: MIGRATIONS,
      // Migrations are committed code; running them must not write snapshot files into the source tree.
      snapshot: false,
      snapshotOnMigrate: false,
      transactional: true,
      allOrNothing: true,
      silent: true,
    },
  };
}

/** text[] and varchar[]: the string arrays the schema uses (campaigns' channels and goals, casts of id lists). */
const STRING_ARRAY_OIDS = [1009, 1015];

/**
 * Parses string arrays with postgres-array 3 (the parser MikroORM itself uses for date arrays) instead of the
 * 2.0 parser `pg` falls back to, which builds an object for every character of the array's text: it was the
 * largest single allocation of a campaign list call (~38 KB of its ~250 KB, `bench:mcp`'s heap profile), and
 * what a request allocates sets how often the garbage collector stops every request in flight. `pg` reads
 * this registry for every type a pool's own overrides (MikroORM's dates) leave out; same values either way
 * (test/integration/db-arrays.test.ts).
 */
function useFastArrayParsers(): void {
  for (const oid of STRING_ARRAY_OIDS) pg.types.setTypeParser(oid, parseArray);
}

export async function createOrm(options: OrmOptions): Promise<MikroORM> {
  useFastArrayParsers();
  return MikroORM.init(ormOptions(options));
}

/**
 * Applies pending migrations under a PostgreSQL advisory lock, so that an API and a worker starting at the
 * same moment (or several API instances) never run the same migration twice.
 */
export async function migrateToLatest(orm: MikroORM): Promise<string[]> {
  const lockKey = 7_340_211; // arbitrary, fixed: "campaign-platform migrations"
  const em = orm.em.fork();
  // The lock lives in this transaction's connection; the migrator runs on another one, and a second process
  // waits here until the first one's migrations have committed.
  return em.transactional(async (tx) => {
    await tx.getConnection().execute('select pg_advisory_xact_lock(?)', [lockKey], 'all', tx.getTransactionContext());
    const applied = await orm.migrator.up();
    return applied.map((migration) => migration.name);
  });
}
