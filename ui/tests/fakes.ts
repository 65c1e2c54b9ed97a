import type { Clock, SocketLike } from '../src/socket';

export class FakeSocket implements SocketLike {
  readyState = 0;
  sent: string[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  constructor(readonly url: string) {}
  send(d: string) { this.sent.push(d); }
  close() { this.readyState = 3; }
  open() { this.readyState = 1; this.onopen?.({}); }
  fail(code = 1006) { this.readyState = 3; this.onclose?.({ code, reason: '' }); }
  receive(data: string) { this.onmessage?.({ data }); }
}

/**
 * A clock whose timers run when the test says so. It keeps a virtual `now`: `fire()` runs the timer
 * due first, `advance(ms)` runs every timer due within `ms`. Cancelled timers are removed, so
 * `timers` lists only the pending ones.
 */
export class FakeClock implements Clock {
  now = 0;
  timers: Array<{ fn: () => void; ms: number; due: number }> = [];
  setTimeout(fn: () => void, ms: number): unknown {
    const t = { fn, ms, due: this.now + ms };
    this.timers.push(t);
    return t;
  }
  clearTimeout(h: unknown): void {
    const i = this.timers.indexOf(h as FakeClock['timers'][number]);
    if (i >= 0) this.timers.splice(i, 1);
  }
  private next(): FakeClock['timers'][number] | undefined {
    // the earliest due; among equals the one set first
    return this.timers.reduce<FakeClock['timers'][number] | undefined>((a, b) => (a && a.due <= b.due ? a : b), undefined);
  }
  /** Runs the pending timer due first (moving `now` to it); returns its delay. */
  fire(): number {
    const t = this.next();
    if (!t) throw new Error('no timer pending');
    this.timers.splice(this.timers.indexOf(t), 1);
    this.now = Math.max(this.now, t.due);
    t.fn();
    return t.ms;
  }
  /** Moves `now` forward by `ms`, running every timer that falls due on the way, in order. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (let t = this.next(); t && t.due <= end; t = this.next()) this.fire();
    this.now = end;
  }
}
