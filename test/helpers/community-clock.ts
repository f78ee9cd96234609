/** A clock that stands still until a test moves it, for boundaries to the second. */
import { TestClock } from './clock.ts';

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
