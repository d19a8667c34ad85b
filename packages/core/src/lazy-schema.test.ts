import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { lazySchema } from './lazy-schema.js';
import { parseConfig } from './lua/workflow-config.js';

describe('lazySchema', () => {
  it('builds the schema at its first use, once, and then is that schema', () => {
    let built = 0;
    const Point = lazySchema(() => (built++, z.strictObject({ x: z.number(), y: z.number().optional() })));
    expect(built).toBe(0);
    expect(Point.parse({ x: 1 })).toEqual({ x: 1 });
    expect(Point.safeParse({ x: 'a' }).success).toBe(false);
    expect(Object.keys(Point.shape)).toEqual(['x', 'y']);
    expect(Point).toBeInstanceOf(z.ZodObject);
    expect(built).toBe(1);
  });

  it('works inside other schemas, lazy or not, with the same errors', () => {
    const Item = lazySchema(() => z.string().min(2, 'too short'));
    const List = lazySchema(() => z.strictObject({ items: z.array(Item).optional(), one: Item.optional() }));
    expect(List.parse({ items: ['ab', 'cd'], one: 'ef' })).toEqual({ items: ['ab', 'cd'], one: 'ef' });
    const bad = List.safeParse({ items: ['a'] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => [i.path, i.message])).toEqual([[['items', 0], 'too short']]);
  });

  it('cannot be changed through the stand-in', () => {
    const S = lazySchema(() => z.string());
    expect(Reflect.set(S, 'parse', () => 'x')).toBe(false);
    expect(S.parse('y')).toBe('y');
  });
});

describe('parseConfig without keys', () => {
  it('is no keys, as the schema says, and a non-table is still refused by it', () => {
    expect(parseConfig({})).toEqual({});
    expect(parseConfig(null)).toEqual({});
    expect(parseConfig([])).toMatch(/^config: /);
    expect(parseConfig({ lua_timeout: -1 })).toMatch(/^config: lua_timeout/);
  });
});
