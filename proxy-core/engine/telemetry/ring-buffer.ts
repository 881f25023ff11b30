// A fixed-capacity ring of the most recent items: memory stays bounded however long the port runs.
export class RingBuffer<T> {
  private readonly items: (T | undefined)[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`ring buffer capacity must be a positive integer, got ${capacity}`);
    this.items = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    this.items[this.next] = item;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  get size(): number {
    return this.count;
  }

  /** The newest `n` items (all by default), oldest first. */
  recent(n = this.count): T[] {
    const take = Math.min(n, this.count);
    const out: T[] = new Array<T>(take);
    let index = (this.next - take + this.capacity) % this.capacity;
    for (let i = 0; i < take; i++) {
      out[i] = this.items[index] as T;
      index = (index + 1) % this.capacity;
    }
    return out;
  }

  /** The newest item, if any. */
  last(): T | undefined {
    return this.count === 0 ? undefined : this.items[(this.next - 1 + this.capacity) % this.capacity];
  }

  clear(): void {
    this.items.fill(undefined);
    this.next = 0;
    this.count = 0;
  }
}
