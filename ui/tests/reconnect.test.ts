import { describe, expect, it } from 'vitest';
import { backoffDelayMs, decideAfterClose, MAX_ATTEMPTS, STABLE_MS } from '../src/reconnect';
import { ReconnectingSocket, type ConnectionState, type StateDetail } from '../src/socket';
import { FakeClock, FakeSocket } from './fakes';

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
  const clock = new FakeClock();
  const states: Array<[ConnectionState, number]> = [];
  const details: Array<[ConnectionState, StateDetail]> = [];
  const opens: boolean[] = [];
  const messages: string[] = [];
  const rs = new ReconnectingSocket({
    url: () => 'ws://x/ws',
    create: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    clock,
    random: () => 0.5,
    onOpen: (re) => opens.push(re),
    onMessage: (m) => messages.push(m),
    onState: (s, d) => {
      states.push([s, d.nextDelayMs ?? 0]);
      details.push([s, d]);
    },
  });
  return {
    rs, sockets, clock, timers: clock.timers, states, details, opens, messages,
    fire: () => clock.fire(),
    last: () => sockets[sockets.length - 1]!,
  };
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
    expect(h.opens).toEqual([false, true]);
    // connected once the connection has stayed open for the stability window; then the count
    // starts again
    h.clock.advance(STABLE_MS);
    expect(h.rs.state).toBe('connected');
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

  // Issue 18: with the bus down, `/ws/matches/{id}` accepts, sends an `error` and closes 1011 at
  // once. Those opens must not reset the count, nor turn the badge green.
  it('a server that accepts then closes 1011 every time: delays grow, it gives up after 10', () => {
    const h = harness();
    const busError = '{"type":"error","data":{"code":"bus_unavailable","message":"reconnect with backoff"}}';
    h.rs.connect();
    h.last().open(); // the page's first connection: nothing is known to be wrong yet
    expect(h.rs.state).toBe('connected');
    h.last().receive(busError);
    h.last().fail(1011);
    const delays: number[] = [];
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      expect(h.rs.state).toBe('reconnecting');
      delays.push(h.fire());
      h.last().open();
      expect(h.rs.state).toBe('reconnecting');
      h.last().receive(busError);
      h.clock.advance(50);
      h.last().fail(1011);
    }
    expect(delays).toEqual([2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000, 30000, 30000]);
    expect(h.sockets).toHaveLength(1 + MAX_ATTEMPTS);
    expect(h.rs.state).toBe('disconnected');
    expect(h.timers).toHaveLength(0);
    const [, last] = h.details[h.details.length - 1]!;
    expect(last).toMatchObject({ attempt: MAX_ATTEMPTS, closeCode: 1011, reason: `no connection after ${MAX_ATTEMPTS} attempts` });
    // the badge never flipped back to connected after the first drop
    expect(h.states.slice(2).map(([s]) => s)).not.toContain('connected');
    // nothing is left running: no stray reconnect later
    h.clock.advance(10 * 60_000);
    expect(h.sockets).toHaveLength(1 + MAX_ATTEMPTS);
    expect(h.rs.state).toBe('disconnected');
  });

  it('a connection that becomes healthy and later drops starts again from the first delay', () => {
    const h = harness();
    h.rs.connect();
    h.last().open();
    h.clock.advance(STABLE_MS);
    h.last().fail(1011);
    // short-lived opens (closed before the stability window) keep counting: 2, 4, 8 s
    expect(h.fire()).toBe(2000);
    h.last().open();
    h.clock.advance(STABLE_MS - 1);
    h.last().fail(1011);
    expect(h.fire()).toBe(4000);
    h.last().open();
    h.last().fail(1011);
    expect(h.fire()).toBe(8000);
    h.last().open();
    expect(h.rs.state).toBe('reconnecting');
    h.clock.advance(STABLE_MS - 1);
    expect(h.rs.state).toBe('reconnecting');
    h.clock.advance(1); // open for the whole window: healthy
    expect(h.rs.state).toBe('connected');
    expect(h.details[h.details.length - 1]![1].attempt).toBe(0);
    expect(h.timers).toHaveLength(0);
    // it drops later: the count starts again
    h.clock.advance(60_000);
    h.last().fail(1006);
    expect(h.rs.state).toBe('reconnecting');
    expect(h.details[h.details.length - 1]![1]).toMatchObject({ attempt: 1, nextDelayMs: 2000 });
    expect(h.fire()).toBe(2000);
    h.last().fail(1006);
    expect(h.fire()).toBe(4000);
  });
});
