/** A clock tests move forward instead of sleeping. Starts at the real time. */
export class TestClock {
  private offsetMs = 0;

  readonly now = (): Date => new Date(Date.now() + this.offsetMs);

  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
}

/** A clock that stands still until a test moves it, for boundaries to the second. */
export class FrozenClock extends TestClock {
  private at: number;

  constructor(start: Date) {
    super();
    this.at = start.getTime();
  }

  override readonly now = (): Date => new Date(this.at);

  override advance(seconds: number): void {
    this.at += seconds * 1000;
  }

  set(date: Date | string): void {
    this.at = new Date(date).getTime();
  }
}
