// A WebSocket that reconnects by the policy in reconnect.ts and reports its state for the badge.
// The socket factory, timers and randomness are injectable so the tests drive it without a network.
//
// Healthy, not merely open (issue 18): the attempt count is reset only once a connection has stayed
// open for STABLE_MS. An open alone proves nothing — with the bus down `/ws/matches/{id}` accepts,
// sends an `error` and closes 1011 at once, and resetting on open made that a 2 s retry loop that
// never backed off nor gave up. Time, rather than "the first message", is the rule because the
// server speaks before such closes too (the `error` above; a snapshot or `welcome` may precede one).
// The badge follows the same rule: an open during a run of retries stays `reconnecting` (attempt
// n/10) until the connection is healthy, then `connected`. An open with no failure behind it (the
// first connect, or connect() — the modal's "Retry now") shows `connected` at once.

import { decideAfterClose, STABLE_MS } from './reconnect';

export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'disconnected';

export interface SocketLike {
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export interface Clock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface ReconnectingSocketOptions {
  url: () => string;
  create?: (url: string) => SocketLike;
  clock?: Clock;
  random?: () => number;
  /** Called after every open (first and re-connects, healthy or not yet): re-subscribe, re-sync here. */
  onOpen?: (reconnected: boolean) => void;
  onMessage?: (data: string) => void;
  onState?: (state: ConnectionState, detail: StateDetail) => void;
}

export interface StateDetail {
  /** Reconnect attempts made since the connection was last healthy (open for STABLE_MS). */
  attempt: number;
  /** Milliseconds until the next attempt, while reconnecting. */
  nextDelayMs?: number;
  /** Why the socket gave up, once disconnected. */
  reason?: string;
  /** The last close code seen. */
  closeCode?: number;
}

const OPEN = 1;

export class ReconnectingSocket {
  private ws: SocketLike | null = null;
  private timer: unknown = null;
  /** Pending while the current connection is open but not yet healthy. */
  private stableTimer: unknown = null;
  private failed = 0;
  private everOpened = false;
  private stopped = false;
  private _state: ConnectionState = 'connecting';
  private readonly create: (url: string) => SocketLike;
  private readonly clock: Clock;
  private readonly random: () => number;

  constructor(private readonly opts: ReconnectingSocketOptions) {
    this.create = opts.create ?? ((url) => new WebSocket(url) as unknown as SocketLike);
    this.clock = opts.clock ?? {
      setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
      clearTimeout: (h) => globalThis.clearTimeout(h as number),
    };
    this.random = opts.random ?? Math.random;
  }

  get state(): ConnectionState {
    return this._state;
  }

  /** Opens the socket (also: the modal's "retry" after giving up, which starts counting anew). */
  connect(): void {
    this.stopped = false;
    this.failed = 0;
    this.cancelTimers();
    this.open(this.everOpened ? 'reconnecting' : 'connecting');
  }

  /** Sends when open; returns whether it was sent. Subscriptions are re-sent from onOpen. */
  send(message: unknown): boolean {
    if (this.ws && this.ws.readyState === OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  /** Closes for good (leaving the page). */
  close(): void {
    this.stopped = true;
    this.cancelTimers();
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onclose = null;
      ws.onmessage = null;
      ws.onerror = null;
      ws.onopen = null;
      try {
        ws.close(1000, 'bye');
      } catch {
        /* already closed */
      }
    }
    this.setState('disconnected', { attempt: this.failed, reason: 'closed' });
  }

  private open(state: ConnectionState): void {
    this.setState(state, { attempt: this.failed });
    let ws: SocketLike;
    try {
      ws = this.create(this.opts.url());
    } catch {
      this.handleClose(1006);
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      const reconnected = this.everOpened;
      this.everOpened = true;
      // Not healthy yet: `failed` stays as it is until the connection has stayed open STABLE_MS.
      if (this.failed === 0) this.setState('connected', { attempt: 0 });
      this.stableTimer = this.clock.setTimeout(() => {
        this.stableTimer = null;
        if (this.ws !== ws) return;
        const wasRetrying = this.failed > 0;
        this.failed = 0;
        if (wasRetrying) this.setState('connected', { attempt: 0 });
      }, STABLE_MS);
      this.opts.onOpen?.(reconnected);
    };
    ws.onmessage = (ev) => {
      if (typeof ev.data === 'string') this.opts.onMessage?.(ev.data);
    };
    ws.onerror = () => {
      /* a close event always follows */
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.cancelTimers();
      this.handleClose(ev.code);
    };
  }

  private handleClose(code: number): void {
    if (this.stopped) return;
    const decision = decideAfterClose(code, this.failed, this.random());
    if (decision.kind === 'give_up') {
      this.setState('disconnected', { attempt: this.failed, reason: decision.reason, closeCode: code });
      return;
    }
    this.failed = decision.attempt;
    this.setState('reconnecting', {
      attempt: decision.attempt,
      nextDelayMs: decision.delayMs,
      closeCode: code,
    });
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.open('reconnecting');
    }, decision.delayMs);
  }

  private cancelTimers(): void {
    if (this.timer !== null) {
      this.clock.clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.stableTimer !== null) {
      this.clock.clearTimeout(this.stableTimer);
      this.stableTimer = null;
    }
  }

  private setState(state: ConnectionState, detail: StateDetail): void {
    this._state = state;
    this.opts.onState?.(state, detail);
  }
}
