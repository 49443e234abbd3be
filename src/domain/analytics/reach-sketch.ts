/**
 * HyperLogLog reach sketch: the number of distinct sessions, estimated from 16,384 one-byte registers
 * (precision p = 14, standard error 1.04/√m ≈ 0.81%). Sketches merge by register-wise maximum, so the reach of
 * any window is the merge of its daily sketches — no raw events need to be read.
 *
 * Why our own: the HyperLogLog packages on npm are unmaintained, and the algorithm is small.
 *
 * - Registers and ranks follow Flajolet, Fusy, Gandouet, Meunier, "HyperLogLog: the analysis of a near-optimal
 *   cardinality estimation algorithm" (AofA 2007): the first p bits of a 64-bit hash pick the register, the rank
 *   is the position of the first 1 bit in the remaining q = 64 − p bits (q + 1 when they are all zero).
 *   A 64-bit hash, as in Heule, Nunkesser, Hall, "HyperLogLog in practice" (EDBT 2013, HLL++), removes the
 *   large-range correction of the 32-bit original.
 * - The estimate is Ertl's improved estimator (O. Ertl, "New cardinality estimation algorithms for HyperLogLog
 *   sketches", 2017, arXiv:1702.01284, also what Redis uses): it is unbiased across the whole range from the
 *   register histogram alone. It replaces the two corrections of HLL++ — linear counting below the p = 14
 *   threshold of 11,500 and the empirical bias tables above it — whose tables we would otherwise have to carry;
 *   for few sessions it reduces to linear counting (m·ln(m/V)), which is near exact there.
 *
 * The hash is the first 8 bytes of MD5(session id), big-endian. The rollup computes the same register and
 * rank in SQL (`md5()` in PostgreSQL), so sketches built in the database and here are identical.
 */
import { createHash } from 'node:crypto';

export const SKETCH_PRECISION = 14;
export const SKETCH_REGISTERS = 1 << SKETCH_PRECISION; // 16,384
/** Bits left for the rank after the register index; ranks run 0 (empty) … RANK_BITS + 1. */
const RANK_BITS = 64 - SKETCH_PRECISION;

const FORMAT_SPARSE = 1;
const FORMAT_DENSE = 2;
const HEADER_BYTES = 2; // format, precision
/** A sparse entry: register index (uint16, big-endian) and rank (uint8). */
const SPARSE_ENTRY_BYTES = 3;
/** Above this many set registers the dense form (16 KB) is smaller than the sparse one. */
const SPARSE_LIMIT = Math.floor(SKETCH_REGISTERS / SPARSE_ENTRY_BYTES);

/** The 64-bit hash of a session id (first 8 bytes of MD5, big-endian). */
export function sessionHash(sessionId: string): bigint {
  return createHash('md5').update(sessionId, 'utf8').digest().readBigUInt64BE(0);
}

/** Register index and rank of a 64-bit hash. */
export function registerOf(hash: bigint): { index: number; rank: number } {
  const index = Number(hash >> BigInt(RANK_BITS));
  const rest = hash & ((1n << BigInt(RANK_BITS)) - 1n);
  // Leading zeros of the remaining RANK_BITS bits, plus one.
  const rank = rest === 0n ? RANK_BITS + 1 : RANK_BITS - rest.toString(2).length + 1;
  return { index, rank };
}

export class ReachSketch {
  readonly registers: Uint8Array;

  constructor(registers?: Uint8Array) {
    if (registers && registers.length !== SKETCH_REGISTERS) {
      throw new Error(`a reach sketch has ${SKETCH_REGISTERS} registers, got ${registers.length}`);
    }
    this.registers = registers ?? new Uint8Array(SKETCH_REGISTERS);
  }

  /** Counts a session (adding the same id again changes nothing). */
  add(sessionId: string): this {
    return this.addHash(sessionHash(sessionId));
  }

  addHash(hash: bigint): this {
    const { index, rank } = registerOf(hash);
    return this.setRegister(index, rank);
  }

  /** Raises one register to `rank` (the rollup feeds registers computed in SQL). */
  setRegister(index: number, rank: number): this {
    if (!Number.isInteger(index) || index < 0 || index >= SKETCH_REGISTERS || rank < 0 || rank > RANK_BITS + 1) {
      throw new Error(`invalid register ${index} = ${rank}`);
    }
    if (rank > this.registers[index]!) this.registers[index] = rank;
    return this;
  }

  /** Folds `other` into this sketch: afterwards it estimates the union of both session sets. */
  merge(other: ReachSketch): this {
    const mine = this.registers;
    const theirs = other.registers;
    for (let i = 0; i < SKETCH_REGISTERS; i++) if (theirs[i]! > mine[i]!) mine[i] = theirs[i]!;
    return this;
  }

  clone(): ReachSketch {
    return new ReachSketch(this.registers.slice());
  }

  isEmpty(): boolean {
    return this.registers.every((value) => value === 0);
  }

  /** Estimated number of distinct sessions (Ertl 2017, improved raw estimator), rounded. */
  estimate(): number {
    const m = SKETCH_REGISTERS;
    // A typed histogram and an indexed loop: a snapshot estimates a couple of hundred sketches per call.
    const histogram = new Int32Array(RANK_BITS + 2);
    const registers = this.registers;
    for (let i = 0; i < m; i++) histogram[registers[i]!]! += 1;
    if (histogram[0] === m) return 0;
    let z = m * tau((m - histogram[RANK_BITS + 1]!) / m);
    for (let k = RANK_BITS; k >= 1; k--) z = 0.5 * (z + histogram[k]!);
    z += m * sigma(histogram[0]! / m);
    return Math.round((m * m) / (2 * Math.LN2 * z));
  }

  /** Sparse (sorted index + rank pairs) while few registers are set, dense (16 KB) otherwise. */
  toBytes(): Buffer {
    let set = 0;
    for (const value of this.registers) if (value !== 0) set++;
    if (set > SPARSE_LIMIT) {
      const bytes = Buffer.alloc(HEADER_BYTES + SKETCH_REGISTERS);
      bytes[0] = FORMAT_DENSE;
      bytes[1] = SKETCH_PRECISION;
      bytes.set(this.registers, HEADER_BYTES);
      return bytes;
    }
    const bytes = Buffer.alloc(HEADER_BYTES + set * SPARSE_ENTRY_BYTES);
    bytes[0] = FORMAT_SPARSE;
    bytes[1] = SKETCH_PRECISION;
    let offset = HEADER_BYTES;
    for (let index = 0; index < SKETCH_REGISTERS; index++) {
      const rank = this.registers[index]!;
      if (rank === 0) continue;
      bytes.writeUInt16BE(index, offset);
      bytes[offset + 2] = rank;
      offset += SPARSE_ENTRY_BYTES;
    }
    return bytes;
  }

  /**
   * Folds a serialized sketch in without materialising it: a sparse one costs its entries, not 16,384
   * registers (reports union thousands of small daily sketches).
   */
  mergeBytes(bytes: Uint8Array | null | undefined): this {
    if (!bytes || bytes.length === 0) return this;
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (buffer[1] !== SKETCH_PRECISION) throw new Error(`unsupported sketch precision ${buffer[1]}`);
    const mine = this.registers;
    if (buffer[0] === FORMAT_DENSE) {
      if (buffer.length !== HEADER_BYTES + SKETCH_REGISTERS) throw new Error('truncated dense sketch');
      for (let i = 0; i < SKETCH_REGISTERS; i++) {
        const rank = buffer[HEADER_BYTES + i]!;
        if (rank > mine[i]!) mine[i] = rank;
      }
      return this;
    }
    if (buffer[0] !== FORMAT_SPARSE || (buffer.length - HEADER_BYTES) % SPARSE_ENTRY_BYTES !== 0) {
      throw new Error('malformed sketch');
    }
    for (let offset = HEADER_BYTES; offset < buffer.length; offset += SPARSE_ENTRY_BYTES) {
      const index = (buffer[offset]! << 8) | buffer[offset + 1]!;
      const rank = buffer[offset + 2]!;
      if (index >= SKETCH_REGISTERS || rank > RANK_BITS + 1) {
        throw new Error(`malformed sketch: invalid register ${index} = ${rank}`);
      }
      if (rank > mine[index]!) mine[index] = rank;
    }
    return this;
  }

  /** A sketch from its serialized form (sparse or dense); empty for null or no bytes. */
  static fromBytes(bytes: Uint8Array | null | undefined): ReachSketch {
    // A dense one is its registers: one copy instead of a register-by-register merge into an empty sketch.
    if (bytes?.length === HEADER_BYTES + SKETCH_REGISTERS && bytes[0] === FORMAT_DENSE && bytes[1] === SKETCH_PRECISION)
      return new ReachSketch(new Uint8Array(bytes.subarray(HEADER_BYTES)));
    return new ReachSketch().mergeBytes(bytes);
  }

  /** The union of many sketches (serialized or not); empty when there are none. */
  static union(sketches: Iterable<ReachSketch | Uint8Array | null | undefined>): ReachSketch {
    const union = new ReachSketch();
    for (const sketch of sketches) {
      if (sketch instanceof ReachSketch) union.merge(sketch);
      else union.mergeBytes(sketch);
    }
    return union;
  }
}

/** Ertl's σ(x) = x + Σ_{k≥1} x^(2^k) 2^(k−1), summed until it no longer changes. */
function sigma(x: number): number {
  if (x === 1) return Infinity;
  let y = 1;
  let z = x;
  for (;;) {
    x *= x;
    const previous = z;
    z += x * y;
    y += y;
    if (z === previous) return z;
  }
}

/** Ertl's τ(x) = (1 − x − Σ_{k≥1} (1 − x^(2^−k))² 2^−k) / 3, summed until it no longer changes. */
function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  for (;;) {
    x = Math.sqrt(x);
    const previous = z;
    y *= 0.5;
    z -= (1 - x) ** 2 * y;
    if (z === previous) return z / 3;
  }
}
