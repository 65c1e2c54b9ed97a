import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api';
import { findPitch, readAutoCalibration, toStillPixels } from '../src/autoCalibration';
import { apply } from '../src/pitchModel';
import type { AutoCalibrationWire } from '../src/types';

function reply(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

// pixel = 10 × metres + (115, 20): a camera looking straight down at a 1280 × 720 still
const TOP_DOWN = [0.1, 0, -11.5, 0, 0.1, -2, 0, 0, 1];
const FOUND: AutoCalibrationWire = {
  imageToPitch: TOP_DOWN,
  confidence: 0.82,
  pairs: [
    { pixel: { x: 115, y: 20 }, pitch: { x: 0, y: 0 } },
    { pixel: { x: 1165, y: 20 }, pitch: { x: 105, y: 0 } },
    { pixel: { x: 115, y: 700 }, pitch: { x: 0, y: 68 } },
    { pixel: { x: 1165, y: 700 }, pitch: { x: 105, y: 68 } },
  ],
  width: 1280,
  height: 720,
  source: 'auto',
};

afterEach(() => vi.unstubAllGlobals());

describe('automatic calibration', () => {
  it('POSTs {t} to /matches/{id}/calibration/auto and reads a 200 into a camera with its pairs', async () => {
    const fetch = vi.fn(async (_url: string, _init: RequestInit) => reply(200, { data: FOUND }));
    vi.stubGlobal('fetch', fetch);
    const out = await findPitch('match_1', 12.5);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe('/matches/match_1/calibration/auto');
    expect(init.method).toBe('POST');
    expect(JSON.parse(String(init.body))).toEqual({ t: 12.5 });
    expect(out.kind).toBe('found');
    if (out.kind !== 'found') return;
    expect(out.result.imageToPitch).toEqual(TOP_DOWN);
    expect(out.result.confidence).toBe(0.82);
    expect(out.result.pairs).toHaveLength(4);
    expect([out.result.width, out.result.height]).toEqual([1280, 720]);
  });

  it('a 422 is "no pitch found" with the server’s reason', async () => {
    const reason = 'no pitch found in the still: 0 % of the frame is grass, expected at least 40 % to look for the pitch';
    vi.stubGlobal('fetch', vi.fn(async () => reply(422, { error: { code: 'unprocessable', message: reason } })));
    expect(await findPitch('match_1', 0)).toEqual({ kind: 'none', message: reason });
  });

  it('other failures are errors for the page to show', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => reply(409, { error: { code: 'conflict', message: 'no still image for a Synthetic(1) source' } })));
    const out = await findPitch('match_1', 0);
    expect(out.kind).toBe('error');
    if (out.kind !== 'error') return;
    expect(out.error).toBeInstanceOf(ApiError);
    expect((out.error as ApiError).status).toBe(409);
    expect((out.error as ApiError).message).toBe('no still image for a Synthetic(1) source');
  });

  it('a 200 without a usable camera is an error, not a calibration', async () => {
    for (const bad of [
      { ...FOUND, imageToPitch: [1, 2, 3] },
      { ...FOUND, imageToPitch: new Array(9).fill(0) },
      { ...FOUND, imageToPitch: [...TOP_DOWN.slice(0, 8), null] },
      { ...FOUND, width: 0 },
    ]) {
      vi.stubGlobal('fetch', vi.fn(async () => reply(200, { data: bad })));
      expect((await findPitch('match_1', 0)).kind).toBe('error');
    }
  });

  it('clamps the confidence and keeps only complete pairs', () => {
    const r = readAutoCalibration({ ...FOUND, pairs: [...FOUND.pairs, { pixel: { x: 1, y: Number.NaN }, pitch: { x: 0, y: 0 } }] })!;
    expect(r.imageToPitch).toEqual(TOP_DOWN);
    expect(r.pairs).toHaveLength(4);
    expect(readAutoCalibration({ ...FOUND, confidence: 7 })!.confidence).toBe(1);
  });

  it('maps a result measured on another still size into the shown still’s pixels', () => {
    const r = readAutoCalibration(FOUND)!;
    const half = toStillPixels(r, { width: 640, height: 360 });
    expect(half.pairs[1]!.pixel).toEqual({ x: 582.5, y: 10 });
    // the shown still's pixel of the right-top corner still maps to (105, 0)
    const p = apply(half.imageToPitch, [582.5, 10])!;
    expect(p[0]).toBeCloseTo(105, 9);
    expect(p[1]).toBeCloseTo(0, 9);
    expect(toStillPixels(r, { width: 1280, height: 720 })).toBe(r);
  });
});
