import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * A new empty database on the test PostgreSQL (no migrations run), for a test that migrates step by step:
 * `label` names it after the test, beside the run's id, so a leftover is traced to its test.
 */
export async function emptyDatabase(label: string): Promise<string> {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL!;
  const name = `cp_test_${process.env.TEST_RUN_ID}_${label}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${admin.escapeIdentifier(name)} template template0`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
