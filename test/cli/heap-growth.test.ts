// The command bounds V8's heap growth unless node was given its own setting (README "Benchmarks", memory).
import { describe, expect, it } from 'vitest';
import { boundHeapGrowth } from '../../cli/heap-growth.js';

describe('the heap growth bound', () => {
  it('is set when node was started without one, and left alone when it was given one', () => {
    expect(boundHeapGrowth(['--heap-growing-percent=0'])).toBe(false);
    expect(boundHeapGrowth(['--heap_growing_percent=30'])).toBe(false);
    expect(boundHeapGrowth(['--max-old-space-size=4096'])).toBe(true);
  });
});
