import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OPEN_VIDEO_PATH, inDesktop, replayHash, videoRefusal, videoUrl, withViewerToken } from '../src/video';
import { setViewerToken } from '../src/token';

/** A browser's localStorage, in memory. */
function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    get length() { return m.size; },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, String(v)),
  };
}

describe('video', () => {
  beforeEach(() => vi.stubGlobal('localStorage', memoryStorage()));
  afterEach(() => {
    setViewerToken(null);
    vi.unstubAllGlobals();
    delete (globalThis as { __SPORTZ_DESKTOP__?: unknown }).__SPORTZ_DESKTOP__;
  });

  it('puts the viewer token in the query, where an <img> can carry it', () => {
    expect(videoUrl('mat_1')).toBe('/matches/mat_1/video');
    setViewerToken('v t');
    expect(videoUrl('mat_1')).toBe('/matches/mat_1/video?token=v%20t');
    expect(withViewerToken('/x/export', { format: 'cdf' })).toBe('/x/export?format=cdf&token=v%20t');
  });

  it('says why there is no video, from the server when it said', () => {
    expect(videoRefusal(200, null)).toBeNull();
    expect(videoRefusal(503, { error: { code: 'unavailable', message: 'off on CPU-only machines' } })).toEqual({ message: 'off on CPU-only machines', retry: false });
    expect(videoRefusal(409, { error: { message: '' } })).toEqual({ message: 'the server answered 409', retry: true });
    expect(videoRefusal(502, null)).toEqual({ message: 'the server answered 502', retry: true });
    expect(videoRefusal(404, null)?.retry).toBe(false);
  });

  it('knows the desktop window only by its own flag', () => {
    expect(inDesktop()).toBe(false);
    (globalThis as { __SPORTZ_DESKTOP__?: unknown }).__SPORTZ_DESKTOP__ = 'yes';
    expect(inDesktop()).toBe(false);
    (globalThis as { __SPORTZ_DESKTOP__?: unknown }).__SPORTZ_DESKTOP__ = true;
    expect(inDesktop()).toBe(true);
    expect(OPEN_VIDEO_PATH).toBe('/__desktop/open-video');
  });

  it('names the replay player in the route for the desktop overlay', () => {
    expect(replayHash('mat_1', 'ses_2', null)).toBe('#/match/mat_1/replay/ses_2');
    expect(replayHash('mat_1', 'ses_2', 'ses_2-9')).toBe('#/match/mat_1/replay/ses_2?player=ses_2-9');
  });
});
