/** The committed migrations produce exactly the schema the entities describe (no drift). */
import { createOrm } from '../../src/db/orm.ts';
import { createTestDatabase } from '../support/platform.ts';

it('has no difference between the migrated database and the entity metadata', async () => {
  const orm = await createOrm({ url: await createTestDatabase('schema') });
  try {
    const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false, dropTables: true });
    expect(diff.trim()).toBe('');
    const unlogged = await orm.em
      .fork()
      .getConnection()
      .execute<{ relpersistence: string }[]>("select relpersistence from pg_class where relname = 'rate_limit_log'");
    expect(unlogged[0]?.relpersistence).toBe('u');
  } finally {
    await orm.close();
  }
});
