import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  allowedActions,
  applyToCentre,
  applyToMatch,
  applyToStream,
  displayFps,
  emptyCentre,
  emptyStream,
  mergeCommentary,
  parseServerMessage,
  parseStreamMessage,
  phaseBadge,
  recoveryPoint,
  resumeStream,
} from '../src/messages';
import { LANDMARKS, TEAM_COLOURS, labelColour, sceneFromFrame } from '../src/radar';
import type { CommentaryDto, FrameData, MatchDto, ServerMessage } from '../src/types';

// The contract crate's golden fixtures are the wire format this UI reads.
const FIXTURES = fileURLToPath(new URL('../../crates/sportz-contract/tests/fixtures/', import.meta.url));
const fixture = (name: string) => readFileSync(FIXTURES + name, 'utf8');

const created = parseServerMessage(fixture('ws_match_created.json')) as Extract<ServerMessage, { type: 'match_created' }>;
const base: MatchDto = created.data;
const match = (id: string, extra: Partial<MatchDto> = {}): MatchDto => ({ ...base, id, ...extra });
const comment = (id: number, sequence: number): CommentaryDto => ({
  id, sequence, matchId: base.id, minute: null, period: null, eventType: 'comment', actor: null,
  team: null, message: `c${id}`, metadata: null, tags: [], createdAt: '2026-11-30T16:00:00Z',
});

describe('parseServerMessage', () => {
  it('reads every /ws fixture', () => {
    for (const f of ['ws_welcome', 'ws_subscribed', 'ws_unsubscribed', 'ws_match_created', 'ws_match_updated', 'ws_score_update', 'ws_commentary', 'ws_error']) {
      const m = parseServerMessage(fixture(`${f}.json`));
      expect(m, f).not.toBeNull();
      expect(m!.type).toBe(f.slice(3));
    }
  });
  it('rejects what is not a server message', () => {
    for (const bad of ['nope', '[]', '{}', '{"type":"dance"}', '{"type":"score_update","data":{}}', '{"type":"commentary"}', '{"type":"subscribed"}']) {
      expect(parseServerMessage(bad), bad).toBeNull();
    }
  });
});

describe('match centre', () => {
  it('match_created prepends on the first page only, once', () => {
    let s = { ...emptyCentre(), matches: [match('match_a')] };
    s = applyToCentre(s, created);
    expect(s.matches.map((m) => m.id)).toEqual([base.id, 'match_a']);
    expect(s.flashed.has(base.id)).toBe(true);
    const again = applyToCentre(s, created);
    expect(again.matches).toHaveLength(2);
    const page2 = { ...emptyCentre(), matches: [match('match_a')] };
    expect(applyToCentre(page2, created, false)).toBe(page2);
  });
  it('score_update patches the card; unknown ids change nothing', () => {
    const s = { ...emptyCentre(), matches: [base, match('match_b')] };
    const up = parseServerMessage(fixture('ws_score_update.json'))!;
    const after = applyToCentre(s, up);
    expect(after.matches[0]!.homeScore).toBe(1);
    expect(after.matches[0]!.awayScore).toBe(0);
    expect(after.matches[1]).toBe(s.matches[1]);
    const other: ServerMessage = { type: 'score_update', data: { matchId: 'match_zzz', homeScore: 3, awayScore: 3 } };
    expect(applyToCentre(s, other)).toBe(s);
    expect(applyToCentre(after, up)).toBe(after); // same score again: no re-render
  });
  it('match_updated replaces the card (status and phase)', () => {
    const s = { ...emptyCentre(), matches: [base] };
    const live: ServerMessage = { type: 'match_updated', data: { ...base, status: 'processing', phase: 'live' } };
    expect(applyToCentre(s, live).matches[0]!.phase).toBe('live');
  });
  it('commentary and errors leave the grid alone', () => {
    const s = { ...emptyCentre(), matches: [base] };
    expect(applyToCentre(s, parseServerMessage(fixture('ws_commentary.json'))!)).toBe(s);
    expect(applyToCentre(s, { type: 'error', message: 'x' })).toBe(s);
  });
  it('applyToMatch follows only its own match', () => {
    const up = parseServerMessage(fixture('ws_score_update.json'))!;
    expect(applyToMatch(base, up).homeScore).toBe(1);
    const other = match('match_other');
    expect(applyToMatch(other, up)).toBe(other);
  });
  it('phase badges', () => {
    expect(phaseBadge('live').label).toBe('LIVE');
    expect(phaseBadge('scheduled').label).toBe('Upcoming');
    expect(phaseBadge('finished').label).toBe('Final');
  });
});

describe('commentary feed', () => {
  it('is newest first, without duplicates, and names what was added', () => {
    let { feed, added } = mergeCommentary([], [comment(1, 1), comment(3, 3), comment(2, 2)]);
    expect(feed.map((c) => c.id)).toEqual([3, 2, 1]);
    expect(added).toEqual([1, 3, 2]);
    ({ feed, added } = mergeCommentary(feed, [comment(4, 4)]));
    expect(feed.map((c) => c.id)).toEqual([4, 3, 2, 1]);
    expect(added).toEqual([4]);
    ({ feed, added } = mergeCommentary(feed, [comment(4, 4), comment(3, 3)])); // a re-sync page
    expect(feed).toHaveLength(4);
    expect(added).toEqual([]);
  });
  it('orders by creation time, then id (as the server pages), not by sequence', () => {
    const late = { ...comment(5, 1), createdAt: '2026-11-30T16:05:00Z' };
    const early = { ...comment(9, 50), createdAt: '2026-11-30T16:01:00Z' };
    expect(mergeCommentary([], [early, late]).feed.map((c) => c.id)).toEqual([5, 9]);
  });
  it('reads the ws_commentary fixture', () => {
    const m = parseServerMessage(fixture('ws_commentary.json')) as Extract<ServerMessage, { type: 'commentary' }>;
    expect(m.data.eventType).toBe('GOAL');
    expect(mergeCommentary([comment(1, 1)], [m.data]).feed[0]!.id).toBe(17);
  });
});

describe('match stream', () => {
  const frameMsg = parseStreamMessage(fixture('frame.json'))!;
  it('reads every contract fixture', () => {
    for (const f of ['frame', 'frame_uncalibrated', 'ball', 'players', 'status', 'status_snapshot_no_session', 'metrics', 'event', 'error']) {
      expect(parseStreamMessage(fixture(`${f}.json`)), f).not.toBeNull();
    }
    expect(parseStreamMessage('{"type":"welcome"}')).toBeNull();
    expect(parseStreamMessage('ping')).toBeNull();
  });
  it('applies a snapshot: status, frame, metrics, events', () => {
    let s = emptyStream();
    for (const f of ['status', 'frame', 'metrics', 'event']) {
      s = applyToStream(s, parseStreamMessage(fixture(`${f}.json`))!, 1000);
    }
    expect(s.status?.status).toBe('processing');
    expect(s.frame?.frame_number).toBe(1221);
    expect(s.metrics?.device).toBe('cuda:0');
    expect(s.events.map((e) => e.kind)).toEqual(['pass']);
    expect(s.sessionId).toBe('ses_01JC4Z9A1B2C3D4E5F6G7H8J9K');
    // a reconnect's snapshot repeats events: no duplicates
    s = applyToStream(s, parseStreamMessage(fixture('event.json'))!, 1100);
    expect(s.events).toHaveLength(1);
  });
  it('a reconnect resumes from the newest event and keeps the events it had', () => {
    let s = emptyStream();
    expect(recoveryPoint(s)).toBeNull();
    for (const f of ['status', 'frame', 'event']) {
      s = applyToStream(s, parseStreamMessage(fixture(`${f}.json`))!, 1000);
    }
    const first = s.events[0].event_id;
    const later = JSON.parse(fixture('event.json'));
    later.data.event_id = 'evt_01JC4ZZZZZZZZZZZZZZZZZZZZZ';
    later.data.timestamp += 5;
    s = applyToStream(s, parseStreamMessage(JSON.stringify(later))!, 1001);
    expect(recoveryPoint(s)).toBe('evt_01JC4ZZZZZZZZZZZZZZZZZZZZZ');
    const resumed = resumeStream(s);
    expect(resumed.frame).toBeNull();
    expect(resumed.status).toBeNull();
    expect(resumed.events.map((e) => e.event_id)).toEqual(['evt_01JC4ZZZZZZZZZZZZZZZZZZZZZ', first]);
  });
  it('ball and players messages patch the last frame', () => {
    let s = applyToStream(emptyStream(), parseStreamMessage(fixture('frame_uncalibrated.json'))!, 0);
    s = applyToStream(s, parseStreamMessage(fixture('ball.json'))!, 1);
    s = applyToStream(s, parseStreamMessage(fixture('players.json'))!, 2);
    expect(s.frame?.ball?.pitch).toEqual({ x: 72.4, y: 38.1 });
    expect(s.frame?.players.map((p) => p.track_id)).toEqual([42]);
    expect(Array.isArray(s.frame?.trail)).toBe(true);
    // without a frame there is nothing to patch
    expect(applyToStream(emptyStream(), parseStreamMessage(fixture('ball.json'))!, 0).frame).toBeNull();
  });
  it('keeps the latest frame and counts display fps', () => {
    let s = emptyStream();
    for (let i = 0; i <= 10; i++) s = applyToStream(s, frameMsg, 1000 + i * 100);
    expect(displayFps(s, 2000)).toBeCloseTo(10, 5);
    expect(displayFps(s, 10_000)).toBe(0);
  });
  it('reads the snapshot of a match without a session', () => {
    const s = applyToStream(emptyStream(), parseStreamMessage(fixture('status_snapshot_no_session.json'))!, 0);
    expect(s.status?.status).toBeNull();
    expect(s.status?.match_status).toBe('ready');
    expect(s.sessionId).toBeNull();
  });
  it('match_updated from the fixture replaces the card', () => {
    const up = parseServerMessage(fixture('ws_match_updated.json'))!;
    expect(up.type).toBe('match_updated');
    const s = { ...emptyCentre(), matches: [{ ...base, id: (up as { data: MatchDto }).data.id }] };
    expect(applyToCentre(s, up).matches[0]).toEqual((up as { data: MatchDto }).data);
  });
  it('records errors', () => {
    const s = applyToStream(emptyStream(), parseStreamMessage(fixture('error.json'))!, 0);
    expect(s.lastError).toContain('bus_unavailable');
  });
});

describe('radar scene', () => {
  it('uses pitch metres when calibrated', () => {
    const f = (parseStreamMessage(fixture('frame.json'))!.data) as FrameData;
    const s = sceneFromFrame(f);
    expect(s.calibrated).toBe(true);
    expect(s.players).toEqual([{ x: 31, y: 55.2, team: 'other', label: '42', keeper: false }]);
    expect(s.ball).toEqual({ x: 72.4, y: 38.1, predicted: false });
    expect(s.trail).toEqual([{ x: 70.9, y: 38.6 }]);
  });
  it('draws the learnt kit colours, the palette until then or when malformed', () => {
    const f = (parseStreamMessage(fixture('frame.json'))!.data) as FrameData;
    expect(sceneFromFrame(f).colours).toEqual(TEAM_COLOURS);
    const kits = sceneFromFrame({ ...f, kits: { home: '#1a2b3c', away: '#F0F0F0' } }).colours;
    expect(kits).toEqual({ home: '#1a2b3c', away: '#F0F0F0', other: TEAM_COLOURS.other });
    const bad = sceneFromFrame({ ...f, kits: { home: 'red', away: '#12345' } }).colours;
    expect(bad).toEqual(TEAM_COLOURS);
    expect(labelColour('#F0F0F0')).toBe('#111');
    expect(labelColour('#1a2b3c')).toBe('#fff');
  });
  it('scales pixels onto the pitch when uncalibrated', () => {
    const f = (parseStreamMessage(fixture('frame_uncalibrated.json'))!.data) as FrameData;
    const s = sceneFromFrame(f);
    expect(s.calibrated).toBe(false);
    expect(s.ball).toBeNull();
    const p = s.players[0]!;
    expect(p.team).toBe('away');
    expect(p.keeper).toBe(true);
    expect(p.x).toBeCloseTo(((10.5 + 30) / 2) * (105 / 640), 6); // feet: bottom centre
    expect(p.y).toBeCloseTo(80 * (68 / 360), 6);
  });
  it('offers landmarks inside the 105×68 pitch', () => {
    expect(LANDMARKS.length).toBeGreaterThanOrEqual(8);
    for (const l of LANDMARKS) {
      expect(l.x).toBeGreaterThanOrEqual(0);
      expect(l.x).toBeLessThanOrEqual(105);
      expect(l.y).toBeGreaterThanOrEqual(0);
      expect(l.y).toBeLessThanOrEqual(68);
    }
  });
});

describe('session controls', () => {
  const src = { type: 'synthetic' as const, value: 7 };
  const check = (status: MatchDto['status'], videoSource: MatchDto['videoSource'], want: string[]) =>
    expect([...allowedActions({ status, videoSource })].sort(), status).toEqual(want.sort());
  it('follow the status', () => {
    check('draft', null, []);
    check('ready', null, []);
    check('ready', src, ['start', 'restart']);
    check('processing', src, ['pause', 'stop', 'restart']);
    check('paused', src, ['start', 'stop', 'restart']);
    check('completed', src, ['start', 'restart']);
    check('starting', src, ['stop', 'restart']);
  });
});
