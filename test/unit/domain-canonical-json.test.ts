import { describe, expect, it } from 'vitest';
import { canonicalJson, sameJson } from '../../lib/domain/canonical-json.js';

/** What canonicalJson is defined to be: JSON.stringify of a copy whose objects are rebuilt with sorted keys. */
function byRebuiltObjects(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** A small seeded generator (mulberry32), so a failure names the value that caused it. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['a', 'b', 'B', 'é', '', '0', '1', '2', '10', '01', '-1', '1.5', '4294967294', '4294967295', 'tags', 'state', '"q"', 'x\ny'];
const STRINGS = ['', 'text', 'ü\u2028', '"quoted"', '\\', '\u0000', '😀'];

function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 3 ? 6 : 8));
  switch (pick) {
    case 0: return null;
    case 1: return undefined;
    case 2: return next() < 0.5;
    case 3: return [0, -0, 1.5, -7, 1e21, 2 ** 64, NaN, Infinity][Math.floor(next() * 8)];
    case 4: return STRINGS[Math.floor(next() * STRINGS.length)];
    case 5: return next() < 0.5 ? new Date(Math.floor(next() * 1e12)) : 'date-like';
    case 6: return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 6); i > 0; i--) object[KEYS[Math.floor(next() * KEYS.length)]!] = value(next, depth + 1);
      return object;
    }
  }
}

describe('canonicalJson', () => {
  it('sorts object keys at every depth and leaves out undefined values, as JSON.stringify does', () => {
    expect(canonicalJson({ b: 1, a: { d: [true, undefined], c: undefined } })).toBe('{"a":{"d":[true,null]},"b":1}');
    expect(canonicalJson({ tags: { z: '1', a: '2' } })).toBe(canonicalJson({ tags: { a: '2', z: '1' } }));
    expect(canonicalJson(undefined)).toBeUndefined();
  });

  it('lists integer keys first, in numeric order, as an object rebuilt with sorted keys does', () => {
    expect(canonicalJson({ b: 1, 10: 2, 2: 3, '01': 4, a: 5 })).toBe('{"2":3,"10":2,"01":4,"a":5,"b":1}');
  });

  it('gives what JSON.stringify gives for the value rebuilt with sorted keys, for 2000 random values', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const input = value(random(seed), 0);
      expect(canonicalJson(input), `seed ${seed}`).toBe(byRebuiltObjects(input));
    }
  });

  it('calls toJSON with the key or array index the value is found under, as JSON.stringify does', () => {
    const named = { toJSON: (key: string) => `under '${key}'` };
    const input = { a: [named, { c: named }], b: named };
    expect(canonicalJson(input)).toBe(JSON.stringify(input));
    expect(canonicalJson(input)).toBe(`{"a":["under '0'",{"c":"under 'c'"}],"b":"under 'b'"}`);
    expect(canonicalJson(named)).toBe(`"under ''"`);
  });

  it('refuses what JSON.stringify refuses', () => {
    expect(() => canonicalJson({ a: 1n })).toThrow(TypeError);
  });
});

describe('sameJson', () => {
  it('holds exactly when the canonical JSON of both is the same, for 2000 random pairs and each value with itself', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const next = random(seed);
      const a = value(next, 0);
      const b = next() < 0.3 ? JSON.parse(JSON.stringify(a ?? null)) as unknown : value(next, 0);
      expect(sameJson(a, b), `seed ${seed}`).toBe(canonicalJson(a) === canonicalJson(b));
      expect(sameJson(a, a), `seed ${seed}`).toBe(true);
    }
  });

  it('compares objects by content, not identity or key order', () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameJson(NaN, null)).toBe(true);
    expect(sameJson(undefined, null)).toBe(false);
  });

  it('holds for a value and itself without writing it out', () => {
    let written = 0;
    const record = { tags: { toJSON: () => ++written } };
    expect(sameJson(record, record)).toBe(true);
    expect(written).toBe(0);
  });
});
