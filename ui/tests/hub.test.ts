import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Hub } from '../src/hub';
import type { ServerMessage } from '../src/types';
import { FakeClock, FakeSocket } from './fakes';

const FIXTURES = fileURLToPath(new URL('../../crates/sportz-contract/tests/fixtures/', import.meta.url));
const fixture = (name: string) => readFileSync(FIXTURES + name, 'utf8');

function setup() {
  const sockets: FakeSocket[] = [];
  const clock = new FakeClock();
  const hub = new Hub({
    url: () => 'ws://test/ws',
    create: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    clock,
    random: () => 0.5,
  });
  const got: ServerMessage[] = [];
  let resyncs = 0;
  const states: string[] = [];
  hub.on((m) => got.push(m));
  hub.onReconnect(() => resyncs++);
  hub.onState((s) => states.push(s));
  return { hub, sockets, clock, got, states, last: () => sockets[sockets.length - 1]!, resyncs: () => resyncs };
}
const sent = (s: FakeSocket) => s.sent.map((x) => JSON.parse(x));

describe('Hub (the /ws connection)', () => {
  it('subscribes once open and routes parsed messages; drops garbage', () => {
    const t = setup();
    t.hub.subscribe('match_A'); // before open: remembered, sent on open
    t.hub.connect();
    t.last().open();
    expect(sent(t.last())).toEqual([{ type: 'subscribe', matchId: 'match_A' }]);
    t.last().receive(fixture('ws_welcome.json'));
    t.last().receive(fixture('ws_commentary.json'));
    t.last().receive('not json');
    t.last().receive('{"type":"dance"}');
    expect(t.got.map((m) => m.type)).toEqual(['welcome', 'commentary']);
    expect(t.states).toEqual(['connecting', 'connected']);
  });

  it('re-subscribes every room after a reconnect and asks the pages to re-sync', () => {
    const t = setup();
    t.hub.connect();
    t.last().open();
    t.hub.subscribe('match_A');
    t.hub.subscribe('match_B');
    t.hub.unsubscribe('match_B');
    expect(sent(t.last()).map((m) => `${m.type} ${m.matchId}`)).toEqual([
      'subscribe match_A', 'subscribe match_B', 'unsubscribe match_B',
    ]);
    expect(t.resyncs()).toBe(0);
    t.last().fail(1001); // server shutting down
    expect(t.hub.state).toBe('reconnecting');
    expect(t.clock.fire()).toBe(2000);
    t.last().fail(1006); // still down
    expect(t.clock.fire()).toBe(4000);
    t.last().open();
    expect(sent(t.last())).toEqual([{ type: 'subscribe', matchId: 'match_A' }]);
    expect(t.resyncs()).toBe(1);
    // connected again once the connection has stayed open for the stability window
    expect(t.hub.state).toBe('reconnecting');
    t.clock.advance(10_000);
    expect(t.hub.state).toBe('connected');
    expect(t.states).toEqual(['connecting', 'connected', 'reconnecting', 'reconnecting', 'reconnecting', 'reconnecting', 'connected']);
  });

  it('unsubscribing an unknown room sends nothing', () => {
    const t = setup();
    t.hub.connect();
    t.last().open();
    t.hub.unsubscribe('match_X');
    expect(t.last().sent).toEqual([]);
  });
});
