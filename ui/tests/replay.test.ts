import { describe, expect, it } from 'vitest';
import { advance, clock, parseReplayMessage, toggle } from '../src/replay';

describe('replay', () => {
  it('reads the player from replay messages and nothing else', () => {
    const text = JSON.stringify({ type: 'replay', replay: true, data: { state: 'paused', at: 3.5, speed: 2, duration: 60 } });
    expect(parseReplayMessage(text)).toEqual({ state: 'paused', at: 3.5, speed: 2, duration: 60, player: null });
    const followed = JSON.stringify({ type: 'replay', data: { state: 'playing', at: 0, speed: 1, duration: 2, player: 'ses_1-7' } });
    expect(parseReplayMessage(followed)?.player).toBe('ses_1-7');
    expect(parseReplayMessage('{"type":"frame","data":{}}')).toBeNull();
    expect(parseReplayMessage('{"type":"replay","data":{"state":"rewinding","at":0,"speed":1,"duration":1}}')).toBeNull();
    expect(parseReplayMessage('not json')).toBeNull();
  });

  it('moves with the frames, never past the end', () => {
    const r = { state: 'playing' as const, at: 1, speed: 1, duration: 10, player: null };
    expect(advance(r, 2.5).at).toBe(2.5);
    expect(advance(r, 0.5).at).toBe(1);
    expect(advance(r, 12).at).toBe(10);
  });

  it('the button pauses, plays, or starts an ended replay again', () => {
    const r = { state: 'playing' as const, at: 1, speed: 1, duration: 10, player: null };
    expect(toggle(r)).toEqual([{ type: 'pause' }]);
    expect(toggle({ ...r, state: 'paused' })).toEqual([{ type: 'play' }]);
    expect(toggle({ ...r, state: 'ended' })).toEqual([{ type: 'seek', t: 0 }, { type: 'play' }]);
    expect(toggle(null)).toEqual([{ type: 'play' }]);
    expect(clock(75.9)).toBe('1:15');
  });
});
