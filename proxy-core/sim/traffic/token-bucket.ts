// A token bucket shared by every request of the traffic generator (list, write, sweep step, watch
// reconnect), so the generator never sends more than `rate` requests per second plus a small burst.

export class TokenBucket {
  private tokens = 0;
  private last = performance.now();
  private readonly waiters: { resolve: (granted: boolean) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private rate: number,
    /** Tokens that may pile up while nobody asks; 1 means strictly paced. */
    private readonly burst: number = Math.max(1, Math.ceil(rate / 10)),
  ) {}

  setRate(rate: number): void {
    this.refill();
    this.rate = Math.max(0, rate);
    this.schedule();
  }

  /** Resolves true when a token is granted, false once the bucket is closed. Waiters are served in order. */
  take(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.waiters.push({ resolve });
      this.grant();
    });
  }

  /** Refuses every waiting and later take(). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const w of this.waiters.splice(0)) w.resolve(false);
  }

  private refill(): void {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
  }

  private grant(): void {
    this.refill();
    while (this.waiters.length > 0 && this.tokens >= 1) {
      this.tokens -= 1;
      this.waiters.shift()?.resolve(true);
    }
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    // At rate 0 nothing is granted until setRate() raises it.
    if (this.closed || this.waiters.length === 0 || this.rate <= 0) return;
    const ms = Math.max(1, ((1 - this.tokens) / this.rate) * 1000);
    this.timer = setTimeout(() => this.grant(), ms);
  }
}
