/** At most `n` holders at once; a released place goes to the longest waiter. */
export class Semaphore {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}

  acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(n = 1): void {
    for (let i = 0; i < n; i++) {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
