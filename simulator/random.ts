// Deterministic randomness for the simulator. Every generated value comes from a PRNG seeded by a hash of
// (simulator seed, what is being generated, request content), never from request order, so a test can
// recompute the ground truth of any response from the seed alone.

/** 32-bit string hash (cyrb53's mixing, folded to 32 bits); good avalanche for short keys. */
export function hash32(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h1 ^ (h2 >>> 7)) >>> 0;
}

// A separator that cannot be confused with content, so ('ab', 'c') and ('a', 'bc') hash differently.
const SEP = '\u0000';

export function keyOf(seed: number, parts: ReadonlyArray<string | number>): string {
  return `${seed}${SEP}${parts.join(SEP)}`;
}

/** A number in [0, 1) that is a pure function of the seed and the parts. */
export function unitFor(seed: number, ...parts: Array<string | number>): number {
  return hash32(keyOf(seed, parts)) / 4294967296;
}

/** mulberry32: tiny, fast, and plenty for synthetic data (not for anything security-related). */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** `count` distinct items in random order (all of them when count >= length). */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = items.slice();
    const n = Math.min(count, copy.length);
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(this.next() * (copy.length - i));
      const tmp = copy[i] as T;
      copy[i] = copy[j] as T;
      copy[j] = tmp;
    }
    return copy.slice(0, n);
  }

  hex(length: number): string {
    let out = '';
    while (out.length < length)
      out += Math.floor(this.next() * 4294967296)
        .toString(16)
        .padStart(8, '0');
    return out.slice(0, length);
  }

  /** Float in [min, max) rounded to `decimals`. */
  float(min: number, max: number, decimals: number): number {
    const f = 10 ** decimals;
    return Math.round((min + this.next() * (max - min)) * f) / f;
  }
}

export function rngFor(seed: number, ...parts: Array<string | number>): Rng {
  return new Rng(hash32(keyOf(seed, parts)));
}
