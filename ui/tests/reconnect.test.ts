import { describe, expect, it } from 'vitest';
import { backoffDelayMs, decideAfterClose, MAX_ATTEMPTS } from '../src/reconnect';
import { ReconnectingSocket, type ConnectionState } from '../src/socket';
import { FakeSocket } from './fakes';

describe('backoff', () => {
  // random 0.5 means no jitter
  const cases: Array<[number, number]> = [
    [1, 2000], [2, 4000], [3, 8000], [4, 16000], [5, 30000], [6, 30000], [10, 30000],
  ];
  for (const [attempt, want] of cases) {
    it(`attempt ${attempt} waits ${want} ms`, () => expect(backoffDelayMs(attempt, 0.5)).toBe(want));
  }
  it('jitters within ±20% and never above 30 s', () => {
    expect(backoffDelayMs(1, 0)).toBe(1600);
    expect(backoffDelayMs(1, 0.999999)).toBe(2400);
    expect(backoffDelayMs(5, 0.999999)).toBe(30000);
    expect(backoffDelayMs(5, 0)).toBe(24000);
  });
});

describe('decideAfterClose', () => {
  it('gives up at once on 4401, 4403 and 4404', () => {
    for (const code of [4401, 4403, 4404]) {
      const d = decideAfterClose(code, 0, 0.5);
      expect(d.kind).toBe('give_up');
    }
  });
  it('retries on 1001, 1006, 1011 and 4008', () => {
    for (const code of [1001, 1006, 1011, 4008, 1000]) {
      expect(decideAfterClose(code, 0, 0.5)).toEqual({ kind: 'retry', attempt: 1, delayMs: 2000 });
    }
  });
  it('gives up after 10 failed attempts', () => {
    expect(decideAfterClose(1006, MAX_ATTEMPTS - 1, 0.5)).toEqual({ kind: 'retry', attempt: 10, delayMs: 30000 });
    expect(decideAfterClose(1006, MAX_ATTEMPTS, 0.5).kind).toBe('give_up');
  });
});

// ------------------------------------------------------------------ the socket with fakes

function harness() {
  const sockets: FakeSocket[] = [];
  const timers: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
  const states: Array<[ConnectionState, number]> = [];
  const opens: boolean[] = [];
  const messages: string[] = [];
  const rs = new ReconnectingSocket({
    url: () => 'ws://x/ws',
    create: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    clock: {
      setTimeout: (fn, ms) => { const t = { fn, ms, cancelled: false }; timers.push(t); return t; },
      clearTimeout: (h) => { (h as { cancelled: boolean }).cancelled = true; },
    },
    random: () => 0.5,
    onOpen: (re) => opens.push(re),
    onMessage: (m) => messages.push(m),
    onState: (s, d) => states.push([s, d.nextDelayMs ?? 0]),
  });
  const fire = () => {
    const t = timers.shift()!;
    if (!t.cancelled) t.fn();
    return t.ms;
  };
  return { rs, sockets, timers, states, opens, messages, fire, last: () => sockets[sockets.length - 1]! };
}

describe('ReconnectingSocket', () => {
  it('goes connecting → connected, and passes text messages on', () => {
    const h = harness();
    h.rs.connect();
    expect(h.rs.state).toBe('connecting');
    h.last().open();
    expect(h.rs.state).toBe('connected');
    h.last().receive('{"type":"welcome"}');
    h.last().onmessage?.({ data: new ArrayBuffer(2) });
    expect(h.messages).toEqual(['{"type":"welcome"}']);
    expect(h.opens).toEqual([false]);
  });

  it('reconnects with 2, 4, 8 s and reports a reconnect on open', () => {
    const h = harness();
    h.rs.connect();
    h.last().open();
    h.last().fail(1001);
    expect(h.rs.state).toBe('reconnecting');
    expect(h.fire()).toBe(2000);
    h.last().fail();
    expect(h.fire()).toBe(4000);
    h.last().fail();
    expect(h.fire()).toBe(8000);
    h.last().open();
    expect(h.rs.state).toBe('connected');
    expect(h.opens).toEqual([false, true]);
    // the count starts again after a successful open
    h.last().fail();
    expect(h.fire()).toBe(2000);
  });

  it('gives up after 10 failed attempts and retry() starts again', () => {
    const h = harness();
    h.rs.connect();
    h.last().fail(); // the first connect failed
    for (let i = 0; i < 10; i++) {
      h.fire();
      h.last().fail();
    }
    expect(h.rs.state).toBe('disconnected');
    expect(h.timers).toHaveLength(0);
    expect(h.sockets).toHaveLength(11);
    h.rs.connect();
    expect(h.sockets).toHaveLength(12);
    h.last().open();
    expect(h.rs.state).toBe('connected');
  });

  it('does not reconnect after 4401, 4403, 4404', () => {
    for (const code of [4401, 4403, 4404]) {
      const h = harness();
      h.rs.connect();
      h.last().open();
      h.last().fail(code);
      expect(h.rs.state).toBe('disconnected');
      expect(h.timers).toHaveLength(0);
    }
  });

  it('reconnects after 4008 (too slow) and 1011 (bus unavailable)', () => {
    for (const code of [4008, 1011]) {
      const h = harness();
      h.rs.connect();
      h.last().open();
      h.last().fail(code);
      expect(h.rs.state).toBe('reconnecting');
      expect(h.timers).toHaveLength(1);
    }
  });

  it('sends only while open; close() stops for good', () => {
    const h = harness();
    h.rs.connect();
    expect(h.rs.send({ a: 1 })).toBe(false);
    h.last().open();
    expect(h.rs.send({ a: 1 })).toBe(true);
    expect(h.last().sent).toEqual(['{"a":1}']);
    h.rs.close();
    expect(h.rs.state).toBe('disconnected');
    expect(h.timers).toHaveLength(0);
  });
});
