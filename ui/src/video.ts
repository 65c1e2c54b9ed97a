// The annotated live video (`GET /matches/{id}/video`, MJPEG) and what only the desktop app's
// own window can do. No DOM here.

import { getViewerToken } from './token';

/** A same-origin path with the viewer token as `?token=` (an `<img>` or a download link cannot send a header). */
export function withViewerToken(path: string, params: Record<string, string> = {}): string {
  const viewer = getViewerToken();
  const all = viewer ? { ...params, token: viewer } : params;
  const q = Object.entries(all)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  return `${path}${q ? `?${q}` : ''}`;
}

/** The match's video stream. */
export function videoUrl(matchId: string): string {
  return withViewerToken(`/matches/${encodeURIComponent(matchId)}/video`);
}

/**
 * What an answer of the video route means for the page: null when the stream plays, else why not
 * and whether asking again later can help (the match not analysed yet: yes; video off on the
 * server, no such match, a refused token: no).
 */
export function videoRefusal(status: number, body: unknown): { message: string; retry: boolean } | null {
  if (status === 200) return null;
  const said = (body as { error?: { message?: unknown } } | null)?.error?.message;
  const message = typeof said === 'string' && said ? said : `the server answered ${status}`;
  return { message, retry: ![401, 403, 404, 503].includes(status) };
}

/** Set by the desktop app's initialisation script in its own window only. */
export function inDesktop(): boolean {
  return (globalThis as { __SPORTZ_DESKTOP__?: unknown }).__SPORTZ_DESKTOP__ === true;
}

/** The desktop shell catches this navigation and shows its native "Open a video" dialog. */
export const OPEN_VIDEO_PATH = '/__desktop/open-video';

/** The replay route, with the server's player id so that the desktop overlay follows the same player. */
export function replayHash(matchId: string, sessionId: string, player: string | null): string {
  const base = `#/match/${encodeURIComponent(matchId)}/replay/${encodeURIComponent(sessionId)}`;
  return player ? `${base}?player=${encodeURIComponent(player)}` : base;
}
