/**
 * The HyperLogLog reach sketch against exact distinct counts of seeded session ids: accuracy across seven
 * orders of magnitude, merge = sketch of the union, and byte round-trips in both encodings.
 */
import { ReachSketch, SKETCH_REGISTERS, registerOf, sessionHash } from '../../src/domain/analytics/reach-sketch.ts';
import { seededRandom } from '../support/random.ts';

/** Session ids shaped like the cookie ids of the brand sites (random base-36 strings), distinct by index. */
function sessionIds(count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(`${Math.floor(random() * 2 ** 32).toString(36)}${i.toString(36)}`);
  return ids;
}

function sketchOf(ids: Iterable<string>): ReachSketch {
  const sketch = new ReachSketch();
  for (const id of ids) sketch.add(id);
  return sketch;
}

describe('reach sketch (HyperLogLog, p = 14)', () => {
  test.each([1, 10, 100, 1_000, 10_000, 100_000, 1_000_000])('estimates %i sessions within 2%%', (count) => {
    const ids = sessionIds(count, count);
    const sketch = sketchOf(ids);
    // Repeats change nothing: a session seen again is the same visitor.
    for (const id of ids.slice(0, 1000)) sketch.add(id);
    const estimate = sketch.estimate();
    expect(Math.abs(estimate - count) / count).toBeLessThanOrEqual(0.02);
    if (count <= 100) expect(estimate).toBe(count); // linear counting is exact this small
  });

  test('an empty sketch estimates zero', () => {
    expect(new ReachSketch().estimate()).toBe(0);
    expect(ReachSketch.fromBytes(null).estimate()).toBe(0);
  });

  test('merge equals the sketch of the union, register for register', () => {
    const a = sessionIds(30_000, 7);
    const b = [...a.slice(0, 10_000), ...sessionIds(25_000, 8)]; // 10,000 shared with a
    const merged = sketchOf(a).merge(sketchOf(b));
    const union = sketchOf([...a, ...b]);
    expect(Buffer.from(merged.registers).equals(Buffer.from(union.registers))).toBe(true);
    const exact = new Set([...a, ...b]).size;
    expect(Math.abs(merged.estimate() - exact) / exact).toBeLessThanOrEqual(0.02);
    // Merging is idempotent and commutative.
    expect(merged.clone().merge(sketchOf(a)).estimate()).toBe(merged.estimate());
    expect(sketchOf(b).merge(sketchOf(a)).estimate()).toBe(merged.estimate());
  });

  test('serialization round-trips, sparse while small and dense when full', () => {
    const small = sketchOf(sessionIds(500, 3));
    const smallBytes = small.toBytes();
    expect(smallBytes[0]).toBe(1); // sparse
    expect(smallBytes.length).toBeLessThan(2 + 3 * 500 + 1);
    expect(ReachSketch.fromBytes(smallBytes).registers).toEqual(small.registers);

    const large = sketchOf(sessionIds(50_000, 4));
    const largeBytes = large.toBytes();
    expect(largeBytes[0]).toBe(2); // dense
    expect(largeBytes.length).toBe(2 + SKETCH_REGISTERS);
    expect(ReachSketch.fromBytes(largeBytes).registers).toEqual(large.registers);

    // A sketch stored sparse and grown past the limit is stored dense, and estimates the same either way.
    const grown = ReachSketch.fromBytes(smallBytes).merge(large);
    expect(grown.toBytes()[0]).toBe(2);
    expect(ReachSketch.fromBytes(grown.toBytes()).estimate()).toBe(grown.estimate());
    expect(ReachSketch.union([smallBytes, largeBytes, null]).registers).toEqual(grown.registers);
  });

  test('merging serialized sketches in place equals merging the decoded ones, sparse or dense', () => {
    const base = sketchOf(sessionIds(2_000, 5));
    const sparse = sketchOf(sessionIds(300, 6));
    const dense = sketchOf(sessionIds(40_000, 7));
    const expected = base.clone().merge(sparse).merge(dense);
    const merged = base.clone().mergeBytes(sparse.toBytes()).mergeBytes(dense.toBytes()).mergeBytes(null);
    expect(merged.registers).toEqual(expected.registers);
    expect(() => new ReachSketch().mergeBytes(Buffer.from([1, 14, 0xff, 0xff, 1]))).toThrow(/malformed/);
  });

  test('the sparse/dense boundary: just under stays sparse, just over goes dense, both round-trip', () => {
    const sketch = new ReachSketch();
    const limit = Math.floor(SKETCH_REGISTERS / 3);
    for (let index = 0; index < limit; index++) sketch.setRegister(index, 1 + (index % 51));
    expect(sketch.toBytes()[0]).toBe(1);
    expect(ReachSketch.fromBytes(sketch.toBytes()).registers).toEqual(sketch.registers);
    sketch.setRegister(limit, 3);
    expect(sketch.toBytes()[0]).toBe(2);
    expect(ReachSketch.fromBytes(sketch.toBytes()).registers).toEqual(sketch.registers);
  });

  test('malformed bytes are refused', () => {
    expect(() => ReachSketch.fromBytes(Buffer.from([2, 14, 0]))).toThrow(/truncated/);
    expect(() => ReachSketch.fromBytes(Buffer.from([1, 12]))).toThrow(/precision/);
    expect(() => ReachSketch.fromBytes(Buffer.from([1, 14, 0xff, 0xff, 1]))).toThrow(/invalid register/);
  });

  test('register and rank come from the 64-bit hash as specified', () => {
    expect(registerOf(0xfffc000000000000n)).toEqual({ index: 16383, rank: 51 }); // all rank bits zero
    expect(registerOf(0x0002000000000000n)).toEqual({ index: 0, rank: 1 }); // first rank bit set
    expect(registerOf(0x0000000000000001n)).toEqual({ index: 0, rank: 50 });
    // The hash is MD5's first 8 bytes: md5('') = d41d8cd98f00b204…
    expect(sessionHash('')).toBe(0xd41d8cd98f00b204n);
    // 200,000 session ids spread over all 16,384 registers. Seeded, like the rest of this file: with fresh
    // random UUIDs some register stayed empty in about 8% of runs (16384 · e^(−200000/16384) ≈ 0.08).
    const sketch = sketchOf(sessionIds(200_000, 2024));
    expect(sketch.registers.every((value) => value > 0)).toBe(true);
  });
});
