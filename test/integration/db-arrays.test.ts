/**
 * String arrays read back exactly as written, through the parser `createOrm` registers (src/db/orm.ts,
 * `useFastArrayParsers`): PostgreSQL's array text quotes, escapes and spells NULL in ways a parser can get
 * wrong, and a campaign's channels and goals, and every `varchar[]` a named statement returns, go through it.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { parse as parseArray } from 'postgres-array';
import { createOrm } from '../../src/db/orm.ts';
import { runPrepared } from '../../src/db/prepared.ts';
import { createTestDatabase } from '../support/platform.ts';

let orm: MikroORM;

beforeAll(async () => {
  orm = await createOrm({ url: await createTestDatabase('arrays') });
}, 60_000);

afterAll(async () => {
  await orm?.close();
});

// Each needs PostgreSQL's quoting in the array text: empty, spaces, the delimiter, braces, quotes, backslashes,
// the word NULL as a string, non-ASCII; then plain words, which it writes bare.
const AWKWARD = ['', ' ', 'a,b', '{x}', 'say "hi"', 'back\\slash', 'NULL', 'null', 'ünï 🙂', 'plain', 'two words'];

test.each([
  ['text[]', 'text'],
  ['varchar[]', 'varchar'],
])('a %s comes back exactly as written, NULL elements included', async (arrayType, name) => {
  const values = [...AWKWARD, null];
  const [row] = await runPrepared<{ read: (string | null)[]; empty: string[] }>(
    orm,
    { name: `db-arrays-${name}`, text: `select $1::${arrayType} as read, '{}'::${arrayType} as empty` },
    [values],
  );
  expect(row!.read).toEqual(values);
  expect(row!.empty).toEqual([]);
});

test('text[] and varchar[] are read by postgres-array 3, which createOrm registered', async () => {
  const pg = (await import('pg')).default;
  for (const oid of [1009, 1015]) expect(pg.types.getTypeParser(oid, 'text')).toBe(parseArray);
});
