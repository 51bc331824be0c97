// Keeps a command's output in memory within a bound: the head and a rolling tail, counting what was dropped
// from the middle.

export class HeadTailBuffer {
  private head = '';
  private tail = '';
  private dropped = 0;
  private readonly headLimit: number;
  private readonly tailLimit: number;

  constructor(maxChars: number) {
    this.headLimit = Math.floor(maxChars / 2);
    this.tailLimit = maxChars - this.headLimit;
  }

  append(text: string): void {
    const headRoom = this.headLimit - this.head.length;
    if (headRoom > 0) {
      this.head += text.slice(0, headRoom);
      text = text.slice(headRoom);
    }
    if (text.length === 0) return;
    this.tail += text;
    // Trim only once the tail is twice its limit, so appending stays linear.
    if (this.tail.length > 2 * this.tailLimit) {
      const excess = this.tail.length - this.tailLimit;
      this.dropped += excess;
      this.tail = this.tail.slice(excess);
    }
  }

  toString(): string {
    const excess = Math.max(0, this.tail.length - this.tailLimit);
    const dropped = this.dropped + excess;
    const tail = this.tail.slice(excess);
    if (dropped === 0) return this.head + tail;
    return `${this.head}\n[… ${dropped} characters of output cut here; redirect the output to a file to keep all of it …]\n${tail}`;
  }
}
