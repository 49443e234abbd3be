/**
 * The site-event recorder on a real PostgreSQL: the COPY path for server-minted events stores exactly what the
 * deduplicating insert stores (awkward text included), and a batch replayed after a lost acknowledgement is
 * written once, through the fallback, without an error.
 */
import { randomUUID } from 'node:crypto';
import { newEventId } from '../../src/domain/analytics/event-ids.ts';
import { copyRows, createSiteEventRecorder } from '../../src/domain/analytics/event-recorder.ts';
import type { SiteEvent } from '../../src/domain/analytics/site-events.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'event-recorder' });
});

afterAll(async () => {
  await platform?.close();
});

/** Text that COPY's format must escape, and text it must not touch. */
const AWKWARD = ['back\\slash', 'tab\there', 'new\nline', 'carriage\rreturn', '\\N', 'quote " and \'', 'ünïcødé ✓'];

function events(workspaceId: string, occurredAt = new Date(Date.now() - 5_000)): SiteEvent[] {
  return AWKWARD.map((text, i) => ({
    eventId: newEventId(),
    workspaceId,
    type: i % 2 === 0 ? 'impression' : 'concierge_question',
    occurredAt,
    sessionId: i === 0 ? null : `session-${i}`,
    campaignId: i === 1 ? null : `cmp_${i}`,
    variantId: `var_${i}`,
    surfaceId: null,
    zoneId: i === 2 ? 'zone_hero' : null,
    goal: i === 3 ? text : null,
    value: i === 3 ? 12.5 : null,
    properties: { source: 'markdown', query: text, nested: { text } },
  }));
}

async function stored(workspaceId: string) {
  return platform.container.orm.em.getConnection().execute<Record<string, unknown>[]>(
    `select event_id, type, occurred_at, session_id, campaign_id, variant_id, surface_id, zone_id, goal,
            value::float8 as value, properties
       from analytics_events where workspace_id = ? order by properties ->> 'query'`,
    [workspaceId],
  );
}

/** The rows without their ids, which differ between two writes of equal events. */
const withoutIds = (rows: Record<string, unknown>[]) => rows.map(({ event_id: _id, ...rest }) => rest);

describe('site event recorder', () => {
  const recorder = () => createSiteEventRecorder(platform.container.orm);

  test('COPY stores exactly what the deduplicating insert stores', async () => {
    const viaCopy = `ws_copy_${randomUUID().slice(0, 8)}`;
    const viaInsert = `ws_insert_${randomUUID().slice(0, 8)}`;
    const occurredAt = new Date(Date.now() - 5_000);
    const copied = events(viaCopy, occurredAt);
    await recorder().recordFresh(copied);
    await recorder().record(events(viaInsert, occurredAt));
    const [copyRowsStored, insertRowsStored] = [await stored(viaCopy), await stored(viaInsert)];
    expect(copyRowsStored).toHaveLength(AWKWARD.length);
    expect(withoutIds(copyRowsStored)).toEqual(withoutIds(insertRowsStored));
    const back = new Map(copyRowsStored.map((row) => [row.event_id, row]));
    for (const event of copied) {
      const row = back.get(event.eventId)!;
      expect(row.properties).toEqual(event.properties);
      expect(row.goal).toBe(event.goal);
      expect(row.session_id).toBe(event.sessionId);
      expect(new Date(row.occurred_at as string).getTime()).toBe(event.occurredAt.getTime());
    }
  });

  test('a batch replayed after a lost acknowledgement is written once, without an error', async () => {
    const workspaceId = `ws_replay_${randomUUID().slice(0, 8)}`;
    const batch = events(workspaceId);
    await recorder().recordFresh(batch.slice(0, 3)); // committed, but the caller never heard back
    await expect(recorder().recordFresh(batch)).resolves.toBeUndefined();
    const rows = await stored(workspaceId);
    expect(rows).toHaveLength(batch.length);
    expect(new Set(rows.map((row) => row.event_id)).size).toBe(batch.length);
  });

  test('the COPY text escapes what its format reserves and nothing else', () => {
    const [event] = events('ws_text');
    const goal = 'raw\ttab, raw\nnewline, raw\\backslash';
    const line = copyRows([{ ...event!, sessionId: null, goal, properties: { query: goal } }]);
    expect(line.endsWith('\n')).toBe(true);
    const fields = line.slice(0, -1).split('\t');
    expect(fields).toHaveLength(12); // no raw tab or newline survives inside a field
    const unescape = (field: string) =>
      field.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r' })[c] ?? c);
    expect(fields[4]).toBe('\\N');
    expect(unescape(fields[9]!)).toBe(goal);
    expect(JSON.parse(unescape(fields[11]!))).toEqual({ query: goal });
  });
});
