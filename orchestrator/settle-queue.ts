// What settled, in the order it settled, let go of from the front: the swarm's ended items and the directory's
// settled rows leave memory this way once the settled log holds them. Taking from the front is O(1); the array is
// cut down now and then so it holds what is still waiting, not everything that ever settled.
export class SettleQueue<T> {
  private items: T[] = [];
  private head = 0;

  push(item: T): void {
    this.items.push(item);
  }

  /**
   * Takes items from the front while `take` says so (false: that item and those after it wait for the next call;
   * true: it is done with).
   */
  drain(take: (item: T) => boolean): void {
    while (this.head < this.items.length && take(this.items[this.head]!)) this.head++;
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
