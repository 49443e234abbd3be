/** The database schema: apply pending migrations. */
import type { Command } from '../command.ts';

export const databaseCommands: Record<string, Command> = {
  migrate: {
    summary: 'Apply pending database migrations.',
    usage: 'migrate',
    options: {},
    async run(io) {
      const { createOrm, migrateToLatest } = await import('../../db/orm.ts');
      const orm = await createOrm({ url: io.config.database.url! });
      try {
        const applied = await migrateToLatest(orm);
        io.result(
          { applied },
          applied.length
            ? `Applied ${applied.length} migration(s): ${applied.join(', ')}`
            : 'The database is up to date; no migration applied.',
        );
      } finally {
        await orm.close();
      }
    },
  },
};
