// Wire types. Match-centre REST and `/ws` use camelCase (the Sportz seed); `/ws/matches/{id}`
// carries contract envelopes in snake_case (crates/sportz-contract).

export type MatchStatus =
  | 'draft' | 'ready' | 'starting' | 'processing' | 'paused' | 'completed' | 'failed';
export type MatchPhase = 'scheduled' | 'live' | 'finished';
export type VideoSourceType = 'file' | 'http' | 'rtmp' | 'rtsp' | 'srt' | 'device' | 'synthetic';
export interface VideoSource { type: VideoSourceType; value: string | number }

export interface MatchDto {
  id: string;
  name: string;
  sport: string;
  homeTeam: string;
  awayTeam: string;
  competition: string | null;
  startTime: string | null;
  endTime: string | null;
  homeScore: number;
  awayScore: number;
  status: MatchStatus;
  phase: MatchPhase;
  statusMessage: string | null;
  videoSource: VideoSource | null;
  currentSessionId: string | null;
  eventCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface ScoreUpdate { matchId: string; homeScore: number; awayScore: number }

export interface CommentaryDto {
  id: number;
  matchId: string;
  minute: number | null;
  sequence: number;
  period: string | null;
  eventType: string;
  actor: string | null;
  team: string | null;
  message: string;
  metadata: Record<string, unknown> | null;
  tags: string[];
  createdAt: string;
}

export type ServerMessage =
  | { type: 'welcome' }
  | { type: 'subscribed'; matchId: string }
  | { type: 'unsubscribed'; matchId: string }
  | { type: 'match_created'; data: MatchDto }
  | { type: 'match_updated'; data: MatchDto }
  | { type: 'score_update'; data: ScoreUpdate }
  | { type: 'commentary'; data: CommentaryDto }
  | { type: 'error'; message: string };

export interface Page<T> { data: T[]; nextCursor: string | null }

// ---- contract (snake_case) ----
export interface PitchPoint { x: number; y: number }
export interface PixelPoint { x: number; y: number }
export interface Ball {
  track_id?: number;
  bbox?: number[];
  pixel: PixelPoint;
  pitch: PitchPoint | null;
  confidence?: number;
  velocity?: { x: number; y: number };
  speed?: number;
  /** m/s on the pitch (extra field; absent without a camera) */
  speed_mps?: number;
  /** Extra field: metres above the grass while the ball's flight is known (pitch is then the point under it). */
  height_m?: number;
  predicted: boolean;
}
export interface TrailPoint { t: number; x: number; y: number; pitch: PitchPoint | null }
export interface Player {
  track_id: number;
  class: string;
  bbox: number[];
  confidence: number;
  pitch: PitchPoint | null;
  team?: 'home' | 'away' | 'other';
}
export interface FrameData {
  frame_number: number;
  video_timestamp: number;
  timestamp: number;
  width: number;
  height: number;
  coordinate_mode: 'pitch' | 'pixel';
  ball: Ball | null;
  trail: TrailPoint[];
  players: Player[];
  latency_ms: number;
  /** extra field: the two sides' kit colours (`#rrggbb`), once the worker has learnt them */
  kits?: { home: string; away: string };
}
/** `ball.data`: the ball part of a frame (sent on its own in snapshots). */
export interface BallData { frame_number: number; video_timestamp: number; ball: Ball | null; trail: TrailPoint[] }
/** `players.data`: the players part of a frame (sent on its own in snapshots). */
export interface PlayersData { frame_number: number; video_timestamp: number; players: Player[] }
export interface GpuMetrics {
  name?: string;
  utilization_pct?: number;
  memory_used_mb?: number;
  memory_total_mb?: number;
  temperature_c?: number;
}
export interface MetricsData {
  source_fps?: number;
  inference_fps?: number;
  detect_ms?: number;
  detect_ms_p95?: number;
  latency_ms?: number;
  frames_processed?: number;
  dropped_frames?: number;
  events_emitted?: number;
  device?: string;
  gpu?: GpuMetrics | null;
}
/** `status` is null in the snapshot of a match without a session (then `match_status` says why). */
export interface StatusData {
  status: string | null;
  message?: string | null;
  worker_id?: string | null;
  match_status?: string;
}
export interface EventData {
  event_id: string;
  kind: string;
  video_timestamp?: number;
  timestamp?: number;
  frame_number?: number;
  pitch?: PitchPoint | null;
  team?: string | null;
  player_track_id?: number | null;
  confidence?: number;
  details?: Record<string, unknown>;
}
export interface ErrorData { code: string; message: string }

export interface Envelope<T extends string = string, D = unknown> {
  type: T;
  match_id: string;
  session_id: string | null;
  ts: number;
  seq: number;
  data: D;
}
export type StreamMessage =
  | Envelope<'status', StatusData>
  | Envelope<'frame', FrameData>
  | Envelope<'ball', BallData>
  | Envelope<'players', PlayersData>
  | Envelope<'event', EventData>
  | Envelope<'metrics', MetricsData>
  | Envelope<'error', ErrorData>;

export interface CalibrationPair { pixel: PixelPoint; pitch: PitchPoint }
export interface Calibration { pairs: CalibrationPair[]; reprojectionErrorPx: number | null }
/**
 * `POST /matches/{id}/calibration/auto` → 200 `{data: …}`: the camera found in the still without
 * clicks, not saved. `imageToPitch` is a row-major 3×3 taking still pixels (x, y, 1) to pitch
 * metres; `pairs` (4–8) are points it implies, in the pixels of a `width × height` still (the
 * video's own size), savable as they are with `PUT /matches/{id}/calibration`.
 */
export interface AutoCalibrationWire {
  imageToPitch: number[];
  /** Share of the pitch-model lines in view that lie on white lines, 0..1. */
  confidence: number;
  pairs: CalibrationPair[];
  width: number;
  height: number;
  source: 'auto';
}
