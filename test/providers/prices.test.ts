import { describe, expect, it } from 'vitest';
import { costOf, priceOf } from '../../orchestrator/models/prices.js';

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({
  input,
  output,
  cacheRead,
  cacheWrite,
});

describe('prices', () => {
  it('prices a known model, dated snapshots and router-prefixed names included', () => {
    expect(costOf('gpt-4o', usage(1_000_000, 1_000_000))).toBeCloseTo(12.5, 9);
    expect(priceOf('gpt-4o-2024-08-06')).toBe(priceOf('gpt-4o'));
    expect(priceOf('openai/gpt-4o-mini')).toBe(priceOf('gpt-4o-mini'));
    expect(priceOf('claude-haiku-4-5-20251001')).toBe(priceOf('claude-haiku-4-5'));
    expect(priceOf('claude-3-5-haiku-latest')).toBe(priceOf('claude-3-5-haiku'));
  });

  it('charges cache reads and writes at their own rates', () => {
    // claude-sonnet-4-5: $3 in, $0.30 read, $3.75 write, $15 out per million.
    expect(costOf('claude-sonnet-4-5', usage(1000, 100, 10_000, 2000))).toBeCloseTo(
      (1000 * 3 + 100 * 15 + 10_000 * 0.3 + 2000 * 3.75) / 1e6,
      12,
    );
  });

  it('keeps sizes apart and leaves unknown models unpriced', () => {
    expect(priceOf('gpt-4o-mini')!.input).toBeLessThan(priceOf('gpt-4o')!.input);
    expect(priceOf('gpt-5.4-mini')).toBeUndefined();
    expect(costOf('llama3.1:8b', usage(10, 10))).toBeUndefined();
  });
});
