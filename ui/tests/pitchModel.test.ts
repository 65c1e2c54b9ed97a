import { describe, expect, it } from 'vitest';
import {
  apply,
  clipRun,
  fitHomography,
  groundCamera,
  invert3,
  meanResidualM,
  pitchModel,
  projectCurve,
  projectPitchLines,
  rescaleImageToPitch,
  type Mat3,
  type Pt,
} from '../src/pitchModel';
import type { CalibrationPair } from '../src/types';

type V3 = [number, number, number];
const sub = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: V3, b: V3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: V3, b: V3): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const unit = (a: V3): V3 => a.map((v) => v / Math.sqrt(dot(a, a))) as V3;

/**
 * A pinhole camera at `eye` looking at `at` (metres; z points down, so heights are negative and a
 * camera on the y = 68 side sees x grow to the right), focal `f` px, principal point at the centre
 * of a 1280 × 720 image: its ground homography computed independently of the code under test.
 */
function pinhole(eye: V3, at: V3, f = 1000) {
  const fwd = unit(sub(at, eye));
  const right = unit(cross([0, 0, 1], fwd));
  const down = cross(fwd, right);
  const R = [right, down, fwd];
  const c = [640, 360];
  const depth = (p: Pt) => dot(fwd, sub([p[0], p[1], 0], eye));
  const pixel = (p: Pt): Pt | null => {
    const d = sub([p[0], p[1], 0], eye);
    const [x, y, z] = R.map((r) => dot(r, d)) as V3;
    return z > 0 ? [(f * x) / z + c[0]!, (f * y) / z + c[1]!] : null;
  };
  const t = R.map((r) => -dot(r, eye));
  // K [r1 r2 t]
  const M = [0, 1, 2].map((i) => [R[i]![0], R[i]![1], t[i]!]);
  const K = [[f, 0, c[0]!], [0, f, c[1]!], [0, 0, 1]];
  const H: Mat3 = [];
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) H.push(K[i]![0]! * M[0]![j]! + K[i]![1]! * M[1]![j]! + K[i]![2]! * M[2]![j]!);
  return { depth, pixel, pitchToImage: H, imageToPitch: invert3(H)! };
}

const broadcast = () => pinhole([52.5, 68 + 40, -18], [52.5, 34, 0]);
/** Standing over the centre spot looking at the right goal: half the pitch is behind it. */
const low = () => pinhole([52.5, 34, -6], [80, 34, 0]);

const pts = (lines: Pt[][]) => lines.flat();
const inFrame = ([x, y]: Pt) => Number.isFinite(x) && Number.isFinite(y) && x >= 0 && x <= 1280 && y >= 0 && y <= 720;
const near = (a: Pt, b: Pt, tol: number) => Math.hypot(a[0] - b[0], a[1] - b[1]) <= tol;

describe('pitch model', () => {
  it('has every line and arc, sampled ≤ 0.5 m apart, within the pitch', () => {
    const model = pitchModel(0.5);
    expect(model.length).toBe(7 + 2 * 4);
    for (const c of model) {
      for (let i = 1; i < c.length; i++) expect(Math.hypot(c[i]![0] - c[i - 1]![0], c[i]![1] - c[i - 1]![1])).toBeLessThanOrEqual(0.5 + 1e-9);
      for (const [x, y] of c) {
        expect(x).toBeGreaterThanOrEqual(-1e-9);
        expect(x).toBeLessThanOrEqual(105 + 1e-9);
        expect(y).toBeGreaterThanOrEqual(-1e-9);
        expect(y).toBeLessThanOrEqual(68 + 1e-9);
      }
    }
    // the left penalty arc is outside the area, ending on its front line
    const arc = model[10]!;
    expect(arc.every(([x]) => x >= 16.5 - 1e-9)).toBe(true);
    expect(arc[0]![0]).toBeCloseTo(16.5, 9);
  });
});

describe('projection', () => {
  it('a broadcast camera puts the centre spot at the image centre and every line where the pinhole sees it', () => {
    const cam = broadcast();
    const g = groundCamera(cam.imageToPitch, 1280, 720)!;
    const spot = apply(g, [52.5, 34])!;
    expect(near(spot, [640, 360], 1e-6)).toBe(true);
    const lines = projectPitchLines(cam.imageToPitch, 1280, 720);
    expect(lines.length).toBeGreaterThanOrEqual(10);
    expect(pts(lines).every(inFrame)).toBe(true);
    for (const p of [[52.5, 34 - 9.15], [52.5, 0], [16.5, 13.84]] as Pt[]) {
      const want = cam.pixel(p)!;
      expect(pts(lines).some((q) => near(q, want, 0.5)), `${p}`).toBe(true);
    }
  });

  it('ignores the homography’s scale and sign', () => {
    const g = broadcast().imageToPitch;
    const want = pts(projectPitchLines(g, 1280, 720));
    for (const k of [-1, -3.7, 1e-4, 250]) {
      const got = pts(projectPitchLines(g.map((v) => v * k), 1280, 720));
      expect(got.length).toBe(want.length);
      got.forEach((q, i) => expect(near(q, want[i]!, 1e-6)).toBe(true));
    }
  });

  it('drops points behind the camera, which a naive projection would put in the frame', () => {
    const cam = low();
    const naive = apply(cam.pitchToImage, [0, 34])!;
    expect(cam.depth([0, 34])).toBeLessThan(0);
    expect(inFrame(naive)).toBe(true);
    const lines = projectPitchLines(cam.imageToPitch, 1280, 720);
    expect(lines.length).toBeGreaterThan(0);
    for (const q of pts(lines)) {
      expect(inFrame(q)).toBe(true);
      expect(cam.depth(apply(cam.imageToPitch, q)!)).toBeGreaterThan(0);
    }
  });

  it('splits a curve at the horizon instead of joining across it', () => {
    const cam = low();
    const g = cam.imageToPitch;
    const w = (x: number, y: number) => g[6]! * x + g[7]! * y + g[8]!;
    expect(Math.sign(w(640, 0))).not.toBe(Math.sign(w(640, 720)));
    // in front (85, 30) → behind (20, 34) → in front (85, 38)
    const curve: Pt[] = [];
    for (let i = 0; i <= 130; i++) curve.push([85 - i * 0.5, 30 + (4 * i) / 130]);
    for (let i = 1; i <= 130; i++) curve.push([20 + i * 0.5, 34 + (4 * i) / 130]);
    const pieces = projectCurve(groundCamera(g, 1280, 720)!, curve, 1280, 720);
    expect(pieces.length).toBe(2);
    const side = Math.sign(w(640, 720));
    for (const [x, y] of pieces.flat()) expect(Math.sign(w(x, y))).toBe(side);
  });

  it('cuts a run that leaves and re-enters the frame at the edge', () => {
    expect(clipRun([[10, 50], [-50, 50], [-50, 60], [10, 60]], 100, 100)).toEqual([
      [[10, 50], [0, 50]],
      [[0, 60], [10, 60]],
    ]);
  });

  it('gives nothing, or finite points in the frame, for garbage matrices', () => {
    const cases: Mat3[] = [
      new Array(9).fill(0),
      new Array(9).fill(Number.NaN),
      [1, 0, 0, 0, 1, 0, 0, 0, Infinity],
      [1, 2, 3, 2, 4, 6, 0, 0, 1],
      [1e300, 0, 0, 0, 1e300, 0, 0, 0, 1e-300],
      [0, 1, 0, 1, 0, 0, 0.01, -0.02, 1],
      [3, -1, 400, 0.5, 9, -30, 0.001, 0.004, -2],
      [1, 0, 0],
    ];
    for (const m of cases) {
      const lines = projectPitchLines(m, 1280, 720);
      for (const l of lines) expect(l.length).toBeGreaterThanOrEqual(2);
      expect(pts(lines).every(inFrame), String(m)).toBe(true);
    }
    expect(projectPitchLines(new Array(9).fill(0), 1280, 720)).toEqual([]);
  });

  it('rescales a camera to a still of another size', () => {
    const cam = broadcast();
    // the same view at half the size
    const half = rescaleImageToPitch(cam.imageToPitch, { width: 1280, height: 720 }, { width: 640, height: 360 });
    const spot = apply(groundCamera(half, 640, 360)!, [52.5, 34])!;
    expect(near(spot, [320, 180], 1e-6)).toBe(true);
  });
});

describe('normalised DLT', () => {
  const landmarks: Pt[] = [[0, 0], [105, 0], [0, 68], [105, 68], [52.5, 0], [52.5, 68], [16.5, 13.84], [88.5, 54.16], [52.5, 24.85]];
  const pairsOf = (cam: ReturnType<typeof pinhole>, list: Pt[], noise = 0): CalibrationPair[] =>
    list.map((p, i) => {
      const q = cam.pixel(p)!;
      // deterministic ± noise
      const e = noise * (i % 2 ? 1 : -1);
      return { pixel: { x: q[0] + e, y: q[1] - e }, pitch: { x: p[0], y: p[1] } };
    });

  it('recovers the camera from 4 exact pairs (up to scale)', () => {
    const cam = broadcast();
    const fit = fitHomography(pairsOf(cam, landmarks.slice(0, 4)))!;
    expect(fit).not.toBeNull();
    expect(fit[8]).toBeCloseTo(1, 12);
    const want = cam.imageToPitch.map((v) => v / cam.imageToPitch[8]!);
    fit.forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 6));
  });

  it('fits many noisy pairs closely, and the drawn lines follow them', () => {
    const cam = broadcast();
    const pairs = pairsOf(cam, landmarks, 0.7);
    const fit = fitHomography(pairs)!;
    expect(meanResidualM(fit, pairs)!).toBeLessThan(0.5);
    // the centre spot, not among the pairs, lands within a few pixels of the truth
    const spot = apply(groundCamera(fit, 1280, 720)!, [52.5, 34])!;
    expect(near(spot, [640, 360], 3)).toBe(true);
    expect(projectPitchLines(fit, 1280, 720).length).toBeGreaterThan(5);
  });

  it('refuses fewer than 4 pairs, collinear pairs and non-finite input', () => {
    const cam = broadcast();
    expect(fitHomography(pairsOf(cam, landmarks.slice(0, 3)))).toBeNull();
    // the halfway line's points and the centre spot: all on x = 52.5
    const line: Pt[] = [[52.5, 0], [52.5, 68], [52.5, 24.85], [52.5, 34]];
    expect(fitHomography(pairsOf(cam, line))).toBeNull();
    const bad = pairsOf(cam, landmarks.slice(0, 4));
    bad[0]!.pixel.x = Number.NaN;
    expect(fitHomography(bad)).toBeNull();
    // four copies of one point
    const same = pairsOf(cam, [[10, 10], [10, 10], [10, 10], [10, 10]]);
    expect(fitHomography(same)).toBeNull();
  });
});
