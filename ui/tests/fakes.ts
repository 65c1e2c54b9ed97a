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

/** A clock whose timers run when the test says so. */
export class FakeClock implements Clock {
  timers: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
  setTimeout(fn: () => void, ms: number): unknown {
    const t = { fn, ms, cancelled: false };
    this.timers.push(t);
    return t;
  }
  clearTimeout(h: unknown): void {
    (h as { cancelled: boolean }).cancelled = true;
  }
  /** Runs the oldest timer; returns its delay. */
  fire(): number {
    const t = this.timers.shift()!;
    if (!t.cancelled) t.fn();
    return t.ms;
  }
}
