// Parsing and applying `/ws` messages and `/ws/matches/{id}` envelopes to plain state. No DOM:
// the views render what these functions return, and the unit tests check them directly.

import type {
  CommentaryDto,
  EventData,
  FrameData,
  MatchDto,
  MetricsData,
  ServerMessage,
  StatusData,
  StreamMessage,
} from './types';

const SERVER_TYPES = new Set([
  'welcome', 'subscribed', 'unsubscribed', 'match_created', 'match_updated', 'score_update',
  'commentary', 'error',
]);
const STREAM_TYPES = new Set(['status', 'frame', 'ball', 'players', 'event', 'metrics', 'error']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads a `/ws` text frame; null for anything that is not a known message. */
export function parseServerMessage(text: string): ServerMessage | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(v) || typeof v.type !== 'string' || !SERVER_TYPES.has(v.type)) return null;
  switch (v.type) {
    case 'match_created':
    case 'match_updated':
      return isObject(v.data) && typeof v.data.id === 'string' ? (v as unknown as ServerMessage) : null;
    case 'score_update':
      return isObject(v.data) && typeof v.data.matchId === 'string'
        ? (v as unknown as ServerMessage)
        : null;
    case 'commentary':
      return isObject(v.data) && typeof v.data.matchId === 'string'
        ? (v as unknown as ServerMessage)
        : null;
    case 'subscribed':
    case 'unsubscribed':
      return typeof v.matchId === 'string' ? (v as unknown as ServerMessage) : null;
    case 'error':
      return { type: 'error', message: typeof v.message === 'string' ? v.message : 'error' };
    default:
      return { type: 'welcome' };
  }
}

/** Reads a `/ws/matches/{id}` text frame; null for anything that is not a contract envelope. */
export function parseStreamMessage(text: string): StreamMessage | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(v) || typeof v.type !== 'string' || !STREAM_TYPES.has(v.type)) return null;
  if (!('data' in v)) return null;
  return v as unknown as StreamMessage;
}

// ---------------------------------------------------------------- match centre (the grid)

export interface CentreState {
  /** Matches in display order (the server's list order; new ones first). */
  matches: MatchDto[];
  /** Ids whose card changed by a live message, for a brief highlight. */
  flashed: Set<string>;
}

export function emptyCentre(): CentreState {
  return { matches: [], flashed: new Set() };
}

/**
 * Applies a global `/ws` message to the grid. `match_created` prepends (only on the first page,
 * `onFirstPage`), `match_updated` replaces, `score_update` patches the scores. Returns the same
 * object when nothing changed.
 */
export function applyToCentre(
  state: CentreState,
  msg: ServerMessage,
  onFirstPage = true,
): CentreState {
  switch (msg.type) {
    case 'match_created': {
      if (state.matches.some((m) => m.id === msg.data.id)) {
        return replaceMatch(state, msg.data);
      }
      if (!onFirstPage) return state;
      return { matches: [msg.data, ...state.matches], flashed: new Set([msg.data.id]) };
    }
    case 'match_updated':
      return replaceMatch(state, msg.data);
    case 'score_update': {
      const { matchId, homeScore, awayScore } = msg.data;
      const i = state.matches.findIndex((m) => m.id === matchId);
      if (i < 0) return state;
      const old = state.matches[i]!;
      if (old.homeScore === homeScore && old.awayScore === awayScore) return state;
      const matches = state.matches.slice();
      matches[i] = { ...old, homeScore, awayScore };
      return { matches, flashed: new Set([matchId]) };
    }
    default:
      return state;
  }
}

function replaceMatch(state: CentreState, m: MatchDto): CentreState {
  const i = state.matches.findIndex((x) => x.id === m.id);
  if (i < 0) return state;
  const matches = state.matches.slice();
  matches[i] = m;
  return { matches, flashed: new Set([m.id]) };
}

/** Applies a `/ws` message to the one match a match page shows. */
export function applyToMatch(match: MatchDto, msg: ServerMessage): MatchDto {
  switch (msg.type) {
    case 'match_updated':
    case 'match_created':
      return msg.data.id === match.id ? msg.data : match;
    case 'score_update':
      return msg.data.matchId === match.id
        ? { ...match, homeScore: msg.data.homeScore, awayScore: msg.data.awayScore }
        : match;
    default:
      return match;
  }
}

// ---------------------------------------------------------------- commentary feed

/** Newest first, as the server pages them: by creation time, then by id. */
export function compareCommentary(a: CommentaryDto, b: CommentaryDto): number {
  const ta = Date.parse(a.createdAt);
  const tb = Date.parse(b.createdAt);
  if (!Number.isNaN(ta) && !Number.isNaN(tb) && ta !== tb) return tb - ta;
  return b.id - a.id;
}

/**
 * Merges commentary rows (a REST page or one live message) into the feed, newest first, without
 * duplicates. Returns the feed and the ids that were not there before.
 */
export function mergeCommentary(
  feed: readonly CommentaryDto[],
  rows: readonly CommentaryDto[],
): { feed: CommentaryDto[]; added: number[] } {
  const byId = new Map(feed.map((c) => [c.id, c]));
  const added: number[] = [];
  for (const r of rows) {
    if (!byId.has(r.id)) added.push(r.id);
    byId.set(r.id, r);
  }
  return { feed: [...byId.values()].sort(compareCommentary), added };
}

// ---------------------------------------------------------------- live stream (radar, events)

export const MAX_EVENTS = 200;

export interface StreamState {
  status: StatusData | null;
  sessionId: string | null;
  frame: FrameData | null;
  metrics: MetricsData | null;
  /** Newest first, deduplicated by event_id. */
  events: EventData[];
  lastError: string | null;
  /** Receive time (ms) of recent frames, for the display fps. */
  frameTimes: number[];
  lastSeq: number;
}

export function emptyStream(): StreamState {
  return {
    status: null,
    sessionId: null,
    frame: null,
    metrics: null,
    events: [],
    lastError: null,
    frameTimes: [],
    lastSeq: 0,
  };
}

/**
 * Where a reconnect resumes from: the newest event this page holds (`?since=` of
 * `/ws/matches/{id}`, so the server replays every event stored after it), or null when it holds
 * none (the server's usual snapshot).
 */
export function recoveryPoint(s: StreamState): string | null {
  return s.events[0]?.event_id ?? null;
}

/**
 * The state a reconnect starts from: everything comes again from the snapshot except the
 * events, which are kept (the snapshot adds the missed ones; duplicates are dropped by id).
 */
export function resumeStream(prev: StreamState): StreamState {
  return { ...emptyStream(), events: prev.events };
}

/**
 * Applies one envelope. A frame replaces the last (latest wins); `ball` / `players` patch it;
 * events are kept newest first, deduplicated by event_id (a reconnect's snapshot repeats the last 50).
 */
export function applyToStream(s: StreamState, msg: StreamMessage, nowMs: number): StreamState {
  const next: StreamState = { ...s, lastSeq: Math.max(s.lastSeq, msg.seq ?? 0) };
  if (msg.session_id && msg.session_id !== s.sessionId) {
    next.sessionId = msg.session_id;
  }
  switch (msg.type) {
    case 'status':
      next.status = msg.data;
      if (msg.data.status !== 'failed') next.lastError = null;
      break;
    case 'frame': {
      next.frame = msg.data;
      const times = s.frameTimes.filter((t) => nowMs - t < 2000);
      times.push(nowMs);
      next.frameTimes = times;
      break;
    }
    case 'ball':
      if (s.frame && isObject(msg.data)) {
        next.frame = { ...s.frame, ball: msg.data.ball ?? null, trail: Array.isArray(msg.data.trail) ? msg.data.trail : s.frame.trail };
      }
      break;
    case 'players':
      if (s.frame && isObject(msg.data) && Array.isArray(msg.data.players)) {
        next.frame = { ...s.frame, players: msg.data.players };
      }
      break;
    case 'metrics':
      next.metrics = msg.data;
      break;
    case 'event': {
      if (s.events.some((e) => e.event_id === msg.data.event_id)) break;
      const events = [msg.data, ...s.events];
      events.sort((a, b) => (b.timestamp ?? 0) - (a.timestamp ?? 0));
      next.events = events.slice(0, MAX_EVENTS);
      break;
    }
    case 'error':
      next.lastError = `${msg.data.message} (${msg.data.code})`;
      break;
  }
  return next;
}

/** Frames per second seen by this browser over the last two seconds. */
export function displayFps(s: StreamState, nowMs: number): number {
  const recent = s.frameTimes.filter((t) => nowMs - t < 2000);
  if (recent.length < 2) return 0;
  const span = (recent[recent.length - 1]! - recent[0]!) / 1000;
  return span > 0 ? (recent.length - 1) / span : 0;
}

/** The card badge for a phase. */
export function phaseBadge(phase: MatchDto['phase']): { label: string; cls: string } {
  switch (phase) {
    case 'live':
      return { label: 'LIVE', cls: 'badge-live' };
    case 'finished':
      return { label: 'Final', cls: 'badge-final' };
    default:
      return { label: 'Upcoming', cls: 'badge-upcoming' };
  }
}

export type ControlAction = 'start' | 'pause' | 'stop' | 'restart';

/**
 * The session controls that make sense for a match's status. The server stays the judge (409 on
 * an illegal transition); this only greys out buttons that cannot work.
 */
export function allowedActions(m: Pick<MatchDto, 'status' | 'videoSource'>): Set<ControlAction> {
  const hasSource = m.videoSource !== null && m.videoSource !== undefined;
  switch (m.status) {
    case 'draft':
      return new Set(hasSource ? ['start'] : []);
    case 'ready':
    case 'completed':
    case 'failed':
      return new Set(hasSource ? ['start', 'restart'] : []);
    case 'starting':
      return new Set(['stop', 'restart']);
    case 'processing':
      return new Set(['pause', 'stop', 'restart']);
    case 'paused':
      return new Set(['start', 'stop', 'restart']);
    default:
      return new Set(['start', 'pause', 'stop', 'restart']);
  }
}
