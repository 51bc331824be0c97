// A least-recently-used cache bounded by the total size of what it holds (each entry says its own size in bytes,
// an estimate). The entry used last is never evicted, so one value bigger than the whole budget still stays
// while it is the one in use (the console keeps the session it is showing) and goes as soon as another is used.
// (lru-cache is only a transitive package here, not a dependency of murmur; this is the small part it would do.)

export class SizeLru<K, V> {
  /** Insertion order is recency order: the first key is the least recently used. */
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private total = 0;

  constructor(readonly maxBytes: number) {
    if (!Number.isFinite(maxBytes) || maxBytes < 0)
      throw new RangeError(`cache size ${String(maxBytes)} must be a number of bytes (0 or more)`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The sum of the entries' sizes. */
  get bytes(): number {
    return this.total;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Adds or replaces (also to say that a value's size changed); it becomes the most recently used. */
  set(key: K, value: V, bytes: number): void {
    const size = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
    this.delete(key);
    this.entries.set(key, { value, bytes: size });
    this.total += size;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxBytes || oldest === key) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
    }
  }

  delete(key: K): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.entries.delete(key);
    this.total -= entry.bytes;
    return true;
  }
}
