import { eventTimeOf, newEventId } from '../../src/domain/analytics/event-ids.ts';

describe('server-minted event ids', () => {
  it('are distinct UUIDv7s carrying the time they were minted, across many refills of the random pool', () => {
    const before = Date.now();
    const ids = Array.from({ length: 5_000 }, () => newEventId());
    const after = Date.now();
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const time = eventTimeOf(id)!.getTime();
      expect(time).toBeGreaterThanOrEqual(before);
      expect(time).toBeLessThanOrEqual(after);
    }
  });

  it('do not repeat their random part between consecutive ids', () => {
    const tails = Array.from({ length: 1_000 }, () => newEventId().slice(24));
    expect(new Set(tails).size).toBe(tails.length);
  });
});
