// The calibration page's "Find the pitch automatically": one call to
// `POST /matches/{id}/calibration/auto` with `{t}`, its answer checked and read into what the page
// draws and saves. No DOM, so the page's handling of each answer is unit-tested.

import { api, ApiError } from './api';
import { invert3, rescaleImageToPitch, type Mat3 } from './pitchModel';
import type { AutoCalibrationWire, CalibrationPair } from './types';

/** A camera found in a still, in the pixels of a `width × height` still. */
export interface AutoCalibration {
  imageToPitch: Mat3;
  confidence: number;
  pairs: CalibrationPair[];
  width: number;
  height: number;
}

export type AutoOutcome =
  | { kind: 'found'; result: AutoCalibration }
  /** 422: the server found no pitch in the still; the operator clicks landmarks instead. */
  | { kind: 'none'; message: string }
  /** Anything else (network, 401, 404, 409, 5xx, a malformed answer): shown as the page shows errors. */
  | { kind: 'error'; error: unknown };

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The answer's camera, or null when it is not a usable one (9 finite numbers, invertible, a size). */
export function readAutoCalibration(raw: AutoCalibrationWire): AutoCalibration | null {
  const m = raw?.imageToPitch;
  if (!Array.isArray(m) || m.length !== 9 || !m.every(finite) || !invert3(m)) return null;
  if (!finite(raw.width) || !finite(raw.height) || raw.width <= 0 || raw.height <= 0) return null;
  const pairs = Array.isArray(raw.pairs)
    ? raw.pairs.filter((p) => finite(p?.pixel?.x) && finite(p?.pixel?.y) && finite(p?.pitch?.x) && finite(p?.pitch?.y))
    : [];
  return {
    imageToPitch: m.slice(),
    confidence: finite(raw.confidence) ? Math.min(1, Math.max(0, raw.confidence)) : 0,
    pairs: pairs.map((p) => ({ pixel: { x: p.pixel.x, y: p.pixel.y }, pitch: { x: p.pitch.x, y: p.pitch.y } })),
    width: raw.width,
    height: raw.height,
  };
}

/** Asks the server to find the pitch in the still at `t` seconds. */
export async function findPitch(matchId: string, t: number): Promise<AutoOutcome> {
  let raw: AutoCalibrationWire;
  try {
    raw = await api.autoCalibration(matchId, t);
  } catch (e) {
    if (e instanceof ApiError && e.status === 422) return { kind: 'none', message: e.message };
    return { kind: 'error', error: e };
  }
  const result = readAutoCalibration(raw);
  if (!result) return { kind: 'error', error: new Error('the server answered without a usable camera') };
  return { kind: 'found', result };
}

/**
 * The result in the pixels of a still of `size` (the one shown), when the server measured a still
 * of another size: pixels scale, the homography takes the shown still's pixels back first.
 */
export function toStillPixels(r: AutoCalibration, size: { width: number; height: number }): AutoCalibration {
  if (!(size.width > 0 && size.height > 0) || (size.width === r.width && size.height === r.height)) return r;
  const sx = r.width / size.width;
  const sy = r.height / size.height;
  return {
    ...r,
    imageToPitch: rescaleImageToPitch(r.imageToPitch, r, size),
    pairs: r.pairs.map((p) => ({ pixel: { x: p.pixel.x / sx, y: p.pixel.y / sy }, pitch: { ...p.pitch } })),
    width: size.width,
    height: size.height,
  };
}
