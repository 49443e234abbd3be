/**
 * Named prepared statements for the few queries on every request's path (API-key lookup, rate limit, the
 * campaign list).
 *
 * The ORM's raw `execute` formats values into the SQL text, so PostgreSQL parses and plans each call anew;
 * a named statement is parsed once per pooled connection (`pg` prepares it on first use there) and then
 * only bound and executed, which is most of the database's CPU for statements this small.
 */
import { createHash } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';

export interface PreparedStatement {
  /** Unique per statement text: `pg` keys the prepared statement on each connection by this name. */
  name: string;
  text: string;
}

/**
 * A statement named after its text, for readers whose SQL is a fixed text per call site (a few variants at
 * most, never values spliced in): each text is prepared once per pooled connection, however many places run
 * it. A text built from data would leave a new statement on every connection for every value: never pass one.
 */
export function statementOf(text: string): PreparedStatement {
  let statement = byText.get(text);
  if (!statement) {
    statement = { name: `sql-${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`, text };
    byText.set(text, statement);
  }
  return statement;
}
const byText = new Map<string, PreparedStatement>();

/** The `pg` pool behind the ORM, for what the ORM cannot do itself (named statements, COPY). */
export async function nativePool(source: MikroORM | EntityManager): Promise<pg.Pool> {
  const em = 'em' in source ? source.em : source;
  return (await em.getConnection().getNativeClient()) as pg.Pool;
}

/** Runs a named statement on a pooled connection (outside any transaction of the ORM's). */
export async function runPrepared<Row extends pg.QueryResultRow>(
  orm: MikroORM | EntityManager,
  statement: PreparedStatement,
  values: unknown[],
): Promise<Row[]> {
  const result = await (await nativePool(orm)).query<Row>({ name: statement.name, text: statement.text, values });
  return result.rows;
}

/**
 * A nullable timestamp column of a named statement's row: the ORM's pool keeps timestamps as PostgreSQL's
 * text, so rows read here are parsed as the ORM would parse them.
 */
export function timestampOrNull(value: string | null): Date | null {
  return value === null ? null : new Date(value);
}
