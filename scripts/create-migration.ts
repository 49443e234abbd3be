/**
 * Writes a new migration from the difference between the entities and the committed migrations.
 *
 *   npm run db:migration:create -- <name>
 *
 * It starts a throwaway embedded PostgreSQL (or uses DATABASE_URL, which must point at a scratch database),
 * applies the committed migrations, diffs against the entity metadata, writes
 * `src/db/migrations/Migration<timestamp>_<name>.ts` and registers it in `src/db/migrations/index.ts`.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createOrm, migrateToLatest } from '../src/db/orm.ts';
import { startEmbeddedPostgres } from '../src/dev/embedded-postgres.ts';

const name = process.argv[2];
if (!name || !/^[a-z][a-z0-9_]*$/.test(name)) {
  console.error('usage: npm run db:migration:create -- <name>   (lower_snake_case)');
  process.exit(2);
}

const scratchDir = await fs.mkdtemp(path.join(os.tmpdir(), 'migration-scratch-'));
await fs.chmod(scratchDir, 0o777);
const postgres = process.env.DATABASE_URL
  ? { url: process.env.DATABASE_URL, stop: async () => undefined }
  : await startEmbeddedPostgres({ dataDir: path.join(scratchDir, 'pg'), port: 54999, database: 'scratch' });
try {
  const orm = await createOrm({ url: postgres.url });
  await migrateToLatest(orm);
  const result = await orm.migrator.create('src/db/migrations', false, false, name);
  await orm.close();
  if (!result.fileName) {
    console.log('No schema changes: nothing written.');
  } else {
    const className = result.fileName.replace(/\.ts$/, '');
    const indexPath = 'src/db/migrations/index.ts';
    const index = await fs.readFile(indexPath, 'utf8');
    const withImport = index.replace(/(\/\*\*[^]*?\*\/\n)/, `$1import { ${className} } from './${result.fileName}';\n`);
    const updated = withImport.replace(/export const MIGRATIONS = \[([^]*?)\];/, (_m, list: string) => {
      const items = list
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
      items.push(className);
      return `export const MIGRATIONS = [${items.join(', ')}];`;
    });
    await fs.writeFile(indexPath, updated);
    console.log(
      `Wrote src/db/migrations/${result.fileName} and registered it in ${indexPath}. Review it before committing.`,
    );
  }
} finally {
  await postgres.stop();
  await fs.rm(scratchDir, { recursive: true, force: true });
}
