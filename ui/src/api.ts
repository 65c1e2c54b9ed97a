// REST client for the sportz API. Every call goes through `request`, which turns the API's error
// body `{error: {code, message, fields?}}` into an ApiError the forms show beside their fields.

import type {
  AutoCalibrationWire,
  Calibration,
  CalibrationPair,
  CommentaryDto,
  MatchDto,
  Page,
  VideoSource,
} from './types';
import { getOperatorToken, getViewerToken } from './token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string> = {},
    readonly retryAfterSecs: number | null = null,
  ) {
    super(message);
  }
}

export function apiBase(): string {
  return '';
}

/** How often a request refused with 429 is sent again (after its Retry-After, at most 10 s). */
const RATE_LIMIT_RETRIES = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One REST call. A 429 is retried after its Retry-After: the server refuses rate-limited requests
 * before handling them, so sending the same one again is safe for every method.
 */
async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await requestOnce<T>(method, path, body);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 429 || attempt >= RATE_LIMIT_RETRIES) throw e;
      await sleep(Math.min(10, Math.max(1, e.retryAfterSecs ?? 1)) * 1000);
    }
  }
}

async function requestOnce<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const token = authToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(apiBase() + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, 'network', `the server cannot be reached (${String(e)})`);
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string; fields?: Record<string, string> } })
      ?.error;
    const retry = res.headers.get('Retry-After');
    throw new ApiError(
      res.status,
      err?.code ?? `http_${res.status}`,
      err?.message ?? (text.slice(0, 200) || res.statusText),
      err?.fields ?? {},
      retry ? Number(retry) : null,
    );
  }
  return json as T;
}

function qs(params: Record<string, string | number | null | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

export interface MatchInput {
  name?: string;
  sport?: string;
  homeTeam?: string;
  awayTeam?: string;
  competition?: string | null;
  startTime?: string | null;
  endTime?: string | null;
  videoSource?: VideoSource | null;
}

export interface CommentaryInput {
  sequence: number;
  eventType: string;
  message: string;
  minute?: number;
  period?: string;
  actor?: string;
  team?: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
}

export const api = {
  listMatches: (limit: number, cursor?: string | null) =>
    request<Page<MatchDto>>('GET', `/matches${qs({ limit, cursor })}`),
  getMatch: (id: string) => request<{ data: MatchDto }>('GET', `/matches/${id}`).then((r) => r.data),
  createMatch: (body: MatchInput) =>
    request<{ data: MatchDto }>('POST', '/matches', body).then((r) => r.data),
  updateMatch: (id: string, body: MatchInput) =>
    request<{ data: MatchDto }>('PATCH', `/matches/${id}`, body).then((r) => r.data),
  deleteMatch: (id: string) => request<void>('DELETE', `/matches/${id}`),
  updateScore: (id: string, homeScore: number, awayScore: number) =>
    request<{ data: MatchDto }>('PATCH', `/matches/${id}/score`, { homeScore, awayScore }).then(
      (r) => r.data,
    ),
  control: (id: string, action: 'start' | 'pause' | 'stop' | 'restart') =>
    request<{ data: MatchDto }>('POST', `/matches/${id}/${action}`).then((r) => r.data),
  listCommentary: (id: string, limit: number, cursor?: string | null) =>
    request<Page<CommentaryDto>>('GET', `/matches/${id}/commentary${qs({ limit, cursor })}`),
  postCommentary: (id: string, body: CommentaryInput) =>
    request<{ data: CommentaryDto }>('POST', `/matches/${id}/commentary`, body).then((r) => r.data),
  getCalibration: (id: string) =>
    request<{ data: Calibration }>('GET', `/matches/${id}/calibration`).then((r) => r.data),
  putCalibration: (id: string, pairs: CalibrationPair[]) =>
    request<{ data: Calibration }>('PUT', `/matches/${id}/calibration`, { pairs }).then((r) => r.data),
  /**
   * Finds the pitch in the still at `t` s without clicks (saves nothing): the camera (image → pitch
   * homography), its confidence and the point pairs it implies. A 422 (no pitch found) rejects as an
   * ApiError with the server's reason.
   */
  autoCalibration: (id: string, t: number) =>
    request<{ data: AutoCalibrationWire }>('POST', `/matches/${id}/calibration/auto`, { t }).then((r) => r.data),
  /** The still as an object URL (fetched with the token, which an <img src> could not send). */
  stillObjectUrl: async (id: string, t: number): Promise<string> => {
    const token = authToken();
    let res: Response;
    try {
      res = await fetch(`${apiBase()}/matches/${id}/still${qs({ t })}`, {
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      });
    } catch (e) {
      throw new ApiError(0, 'network', `the server cannot be reached (${String(e)})`);
    }
    if (!res.ok) {
      const text = await res.text();
      let message = text.slice(0, 200) || res.statusText;
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        /* not JSON */
      }
      throw new ApiError(res.status, `http_${res.status}`, message);
    }
    return URL.createObjectURL(await res.blob());
  },
  workers: () => request<{ data: Array<Record<string, unknown>> }>('GET', '/api/workers').then((r) => r.data),
};

/** The bearer token of REST calls: the operator's when set, else a viewer token when set. */
function authToken(): string | null {
  return getOperatorToken() || getViewerToken();
}

/**
 * The WebSocket URL for a path on the same host. A viewer token, when set, rides as `?token=`
 * (browsers cannot set headers on WebSockets); the operator token is never put in a URL.
 */
export function wsUrl(path: string, params: Record<string, string> = {}): string {
  const loc = globalThis.location;
  const proto = loc.protocol === 'https:' ? 'wss:' : 'ws:';
  const viewer = getViewerToken();
  const all = viewer ? { token: viewer, ...params } : params;
  const q = Object.entries(all)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  return `${proto}//${loc.host}${path}${q ? `?${q}` : ''}`;
}
