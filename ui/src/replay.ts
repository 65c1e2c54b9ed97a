// Replay of a recorded session (`/ws/matches/{id}?replay=<session>`): the server's `replay`
// messages read into plain state, and the controls the page sends. No DOM here.

export interface ReplayState {
  state: 'playing' | 'paused' | 'ended';
  /** Seconds of video the player is at. */
  at: number;
  speed: number;
  /** Seconds of video the recording holds. */
  duration: number;
  /** The server's id of this player (another viewer in the server's process can follow it). */
  player: string | null;
}

export const REPLAY_SPEEDS = [0.25, 0.5, 1, 2, 4] as const;

/** The player reported by a `replay` message; null for any other text. */
export function parseReplayMessage(text: string): ReplayState | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const m = v as { type?: unknown; data?: Record<string, unknown> };
  if (m.type !== 'replay' || typeof m.data !== 'object' || m.data === null) return null;
  const { state, at, speed, duration, player } = m.data;
  if (state !== 'playing' && state !== 'paused' && state !== 'ended') return null;
  if (typeof at !== 'number' || typeof speed !== 'number' || typeof duration !== 'number') return null;
  return { state, at, speed, duration, player: typeof player === 'string' ? player : null };
}

/** The replayed frame's video time moves the player on (between `replay` messages). */
export function advance(r: ReplayState, videoTimestamp: number): ReplayState {
  return videoTimestamp > r.at ? { ...r, at: Math.min(videoTimestamp, r.duration || videoTimestamp) } : r;
}

export type ReplayControl =
  | { type: 'play' }
  | { type: 'pause' }
  | { type: 'seek'; t: number }
  | { type: 'speed'; value: number };

/** What the play/pause button sends: an ended replay starts again from the top. */
export function toggle(r: ReplayState | null): ReplayControl[] {
  if (!r || r.state === 'paused') return [{ type: 'play' }];
  if (r.state === 'ended') return [{ type: 'seek', t: 0 }, { type: 'play' }];
  return [{ type: 'pause' }];
}

/** `m:ss` of seconds. */
export function clock(t: number): string {
  const s = Math.max(0, Math.floor(t));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
