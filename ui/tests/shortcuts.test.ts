import { describe, expect, it } from 'vitest';
import { allowedActions } from '../src/messages';
import { shortcutAction } from '../src/views/match';

describe('match page shortcuts', () => {
  const withSource = { videoSource: { type: 'file', value: 'a.mp4' } } as const;
  it('Space starts, pauses and resumes; S stops; only what the match allows', () => {
    const processing = allowedActions({ status: 'processing', ...withSource });
    expect(shortcutAction(' ', false, processing)).toBe('pause');
    expect(shortcutAction('s', false, processing)).toBe('stop');
    const paused = allowedActions({ status: 'paused', ...withSource });
    expect(shortcutAction(' ', false, paused)).toBe('start');
    const ready = allowedActions({ status: 'ready', ...withSource });
    expect(shortcutAction(' ', false, ready)).toBe('start');
    expect(shortcutAction('s', false, ready)).toBeNull();
    expect(shortcutAction('x', false, processing)).toBeNull();
  });

  it('in a replay Space toggles the player and S does nothing', () => {
    const processing = allowedActions({ status: 'processing', ...withSource });
    expect(shortcutAction(' ', true, processing)).toBe('replay-toggle');
    expect(shortcutAction('s', true, processing)).toBeNull();
  });
});
