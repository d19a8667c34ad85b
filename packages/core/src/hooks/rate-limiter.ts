import type { Clock } from '../engine/ports.js';

/**
 * Floods of deliveries are refused (429 with Retry-After) before anything is read from the
 * store: a token bucket per hook and one for all hooks together, judged by the clock given.
 * A bucket holds at most `burst` tokens and gains `perSecond` a second; a delivery takes one
 * from both its hook's bucket and the global one, or from neither.
 */
export interface Rate {
  readonly burst: number;
  readonly perSecond: number;
}

/** One hook: a burst of 60 (GitHub labelling a page of issues at once), then one a second. */
export const HOOK_RATE: Rate = { burst: 60, perSecond: 1 };
/** Every hook together: a burst of 300, then five a second. */
export const ALL_HOOKS_RATE: Rate = { burst: 300, perSecond: 5 };
/** Buckets kept at most; the least recently used goes first (the global bucket still bounds the total). */
export const MAX_RATE_KEYS = 1000;
/** A key longer than this is judged by its first this-many characters (a key is a hook's name). */
const MAX_KEY_CHARS = 200;

/** Tokens are counted in thousandths, so whole-millisecond refills add up exactly (no 0.999… tokens). */
const UNIT = 1000;

interface Bucket {
  milliTokens: number;
  at: number;
}

export interface RateLimiterOptions {
  readonly perKey?: Rate;
  readonly global?: Rate;
  readonly maxKeys?: number;
}

export class HookRateLimiter {
  private readonly perKey: Rate;
  private readonly globalRate: Rate;
  private readonly maxKeys: number;
  private readonly buckets = new Map<string, Bucket>();
  private readonly all: Bucket;

  constructor(
    private readonly clock: Clock,
    { perKey = HOOK_RATE, global = ALL_HOOKS_RATE, maxKeys = MAX_RATE_KEYS }: RateLimiterOptions = {},
  ) {
    for (const rate of [perKey, global])
      if (!(rate.burst >= 1 && rate.perSecond > 0)) throw new RangeError('a rate needs burst >= 1 and perSecond > 0');
    this.perKey = perKey;
    this.globalRate = global;
    this.maxKeys = Math.max(1, maxKeys);
    this.all = { milliTokens: global.burst * UNIT, at: clock.now() };
  }

  /** true: the delivery may go on (a token taken); a number: refused, milliseconds until one would be let through. */
  take(key: string): true | number {
    const now = this.clock.now();
    const mine = this.bucketOf(key.slice(0, MAX_KEY_CHARS), now);
    refill(mine, this.perKey, now);
    refill(this.all, this.globalRate, now);
    if (mine.milliTokens >= UNIT && this.all.milliTokens >= UNIT) {
      mine.milliTokens -= UNIT;
      this.all.milliTokens -= UNIT;
      return true;
    }
    return Math.max(1, waitMs(mine, this.perKey), waitMs(this.all, this.globalRate));
  }

  /** How many keys have a bucket now (never more than maxKeys). */
  get size(): number {
    return this.buckets.size;
  }

  /** The key's bucket, moved to the most recently used end of the map (a Map keeps insertion order). */
  private bucketOf(key: string, now: number): Bucket {
    const bucket = this.buckets.get(key) ?? { milliTokens: this.perKey.burst * UNIT, at: now };
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    return bucket;
  }
}

/** Tokens earned since the bucket was last looked at; a clock that steps back earns none. */
function refill(b: Bucket, rate: Rate, now: number): void {
  const elapsed = Math.max(0, now - b.at);
  b.milliTokens = Math.min(rate.burst * UNIT, b.milliTokens + elapsed * rate.perSecond);
  b.at = Math.max(b.at, now);
}

const waitMs = (b: Bucket, rate: Rate): number =>
  b.milliTokens >= UNIT ? 0 : Math.ceil((UNIT - b.milliTokens) / rate.perSecond);

/** Retry-After is in whole seconds: a wait rounded up, at least 1. */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
