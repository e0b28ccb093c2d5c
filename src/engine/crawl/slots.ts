/** A counting semaphore: at most `size` holders at once, the others wait in arrival order. */
export class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    this.#free = size;
  }

  /** Resolves when a slot is held; rejects with the signal's reason if it aborts first. */
  acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    if (this.#free > 0) {
      this.#free -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const granted = () => {
        signal.removeEventListener('abort', aborted);
        resolve();
      };
      const aborted = () => {
        const index = this.#waiting.indexOf(granted);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(signal.reason as Error);
      };
      this.#waiting.push(granted);
      signal.addEventListener('abort', aborted, { once: true });
    });
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free += 1;
  }

  /** Nobody holds or waits for a slot. */
  get idle(): boolean {
    return this.#free === this.size && this.#waiting.length === 0;
  }
}
