// Keeps a command's output in memory within a bound: the head and a rolling tail, counting what was dropped
// from the middle.

export class HeadTailBuffer {
  private head = '';
  private tail = '';
  private dropped = 0;

  constructor(private readonly maxChars: number) {}

  append(text: string): void {
    const half = Math.floor(this.maxChars / 2);
    if (this.head.length < half) {
      const room = half - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text.length === 0) return;
    this.tail += text;
    if (this.tail.length > half * 2) {
      // Trim in batches so appending stays linear.
      const excess = this.tail.length - half;
      this.dropped += excess;
      this.tail = this.tail.slice(excess);
    }
  }

  get droppedChars(): number {
    return this.dropped + Math.max(0, this.tail.length - Math.ceil(this.maxChars / 2));
  }

  toString(): string {
    const half = Math.ceil(this.maxChars / 2);
    const extra = Math.max(0, this.tail.length - half);
    const tail = extra > 0 ? this.tail.slice(extra) : this.tail;
    const dropped = this.dropped + extra;
    if (dropped === 0) return this.head + tail;
    return `${this.head}\n[… ${dropped} characters of output cut here; redirect the output to a file to keep all of it …]\n${tail}`;
  }
}
