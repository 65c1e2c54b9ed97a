// The pitch model and its projection into a still, for the calibration page: every line and arc of
// a 105 × 68 m pitch sampled in metres, taken through a camera (the inverse of an image → pitch
// homography) to pixels, with the points behind the camera dropped, split at such gaps and clipped
// to the image; and a normalised DLT that fits an image → pitch homography to clicked pairs. Pure:
// no DOM. The desktop overlay draws the same model (crates/sportz-overlay/src/pitch_lines.rs).

import type { CalibrationPair } from './types';

/** A row-major 3×3 matrix. */
export type Mat3 = number[];
export type Pt = [number, number];

export const PITCH_LENGTH = 105;
export const PITCH_WIDTH = 68;
const CIRCLE_R = 9.15;
const PENALTY_DEPTH = 16.5;
const PENALTY_HALF = 40.32 / 2;
const GOAL_AREA_DEPTH = 5.5;
const GOAL_AREA_HALF = 18.32 / 2;
const SPOT = 11;
const SPOT_R = 0.3;

function segment(a: Pt, b: Pt, step: number): Pt[] {
  const n = Math.max(1, Math.ceil(Math.hypot(b[0] - a[0], b[1] - a[1]) / step));
  return Array.from({ length: n + 1 }, (_, i): Pt => [a[0] + ((b[0] - a[0]) * i) / n, a[1] + ((b[1] - a[1]) * i) / n]);
}

function arc(c: Pt, r: number, from: number, to: number, step: number): Pt[] {
  const span = Math.abs(to - from);
  // at least 16 samples a full turn, so the small spots are round too
  const n = Math.max(2, Math.ceil((span * r) / step), Math.ceil((span / (2 * Math.PI)) * 16));
  return Array.from({ length: n + 1 }, (_, i): Pt => {
    const a = from + ((to - from) * i) / n;
    return [c[0] + r * Math.cos(a), c[1] + r * Math.sin(a)];
  });
}

/** Every line and arc of the pitch (metres, origin at a corner, x along the length), sampled ≤ `step` m apart. */
export function pitchModel(step = 0.5): Pt[][] {
  const L = PITCH_LENGTH;
  const W = PITCH_WIDTH;
  const cy = W / 2;
  const curves: Pt[][] = [
    segment([0, 0], [L, 0], step),
    segment([0, W], [L, W], step),
    segment([0, 0], [0, W], step),
    segment([L, 0], [L, W], step),
    segment([L / 2, 0], [L / 2, W], step),
    arc([L / 2, cy], CIRCLE_R, 0, 2 * Math.PI, step),
    arc([L / 2, cy], SPOT_R, 0, 2 * Math.PI, step),
  ];
  for (const [goal, dir] of [[0, 1], [L, -1]] as const) {
    for (const [depth, half] of [[PENALTY_DEPTH, PENALTY_HALF], [GOAL_AREA_DEPTH, GOAL_AREA_HALF]] as const) {
      const front = goal + dir * depth;
      const corners: Pt[] = [[goal, cy - half], [front, cy - half], [front, cy + half], [goal, cy + half]];
      const box: Pt[] = [];
      for (let i = 0; i + 1 < corners.length; i++) box.push(...segment(corners[i]!, corners[i + 1]!, step).slice(0, -1));
      box.push(corners[3]!);
      curves.push(box);
    }
    const spot: Pt = [goal + dir * SPOT, cy];
    curves.push(arc(spot, SPOT_R, 0, 2 * Math.PI, step));
    // the arc outside the penalty area
    const half = Math.acos((PENALTY_DEPTH - SPOT) / CIRCLE_R);
    const facing = dir > 0 ? 0 : Math.PI;
    curves.push(arc(spot, CIRCLE_R, facing - half, facing + half, step));
  }
  return curves;
}

/** The inverse of a row-major 3×3; null when singular or not finite. */
export function invert3(m: Mat3): Mat3 | null {
  if (m.length !== 9) return null;
  const [a, b, c, d, e, f, g, h, i] = m as [number, number, number, number, number, number, number, number, number];
  const co = [e * i - f * h, c * h - b * i, b * f - c * e, f * g - d * i, a * i - c * g, c * d - a * f, d * h - e * g, b * g - a * h, a * e - b * d];
  const det = a * co[0]! + b * co[3]! + c * co[6]!;
  const scale = Math.max(...m.map(Math.abs));
  if (!Number.isFinite(det) || !Number.isFinite(scale) || scale === 0 || Math.abs(det) <= 1e-12 * scale ** 3) return null;
  const inv = co.map((v) => v / det);
  return inv.every(Number.isFinite) ? inv : null;
}

export function mul3(a: Mat3, b: Mat3): Mat3 {
  const out: Mat3 = [];
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out.push(a[3 * r]! * b[c]! + a[3 * r + 1]! * b[3 + c]! + a[3 * r + 2]! * b[6 + c]!);
  return out;
}

/** Applies a homography to a point, dehomogenised; null at infinity. */
export function apply(m: Mat3, p: Pt): Pt | null {
  const w = m[6]! * p[0] + m[7]! * p[1] + m[8]!;
  const x = (m[0]! * p[0] + m[1]! * p[1] + m[2]!) / w;
  const y = (m[3]! * p[0] + m[4]! * p[1] + m[5]!) / w;
  return Number.isFinite(x) && Number.isFinite(y) ? [x, y] : null;
}

/**
 * The same camera for an image scaled from `from` to `to` pixels: image_to_pitch · diag(sx, sy, 1)
 * with sx = from.w / to.w (a pixel of the new image is first taken back to the old one).
 */
export function rescaleImageToPitch(g: Mat3, from: { width: number; height: number }, to: { width: number; height: number }): Mat3 {
  const sx = from.width / to.width;
  const sy = from.height / to.height;
  return mul3(g, [sx, 0, 0, 0, sy, 0, 0, 0, 1]);
}

/**
 * A pitch → image mapping scaled so that the pitch points in front of the camera have w > 0. A
 * homography is defined up to scale, sign included, so the visible sign is the sign of w at the
 * image's bottom-centre pixel, which a broadcast camera always has on the ground side of the horizon.
 */
export function groundCamera(imageToPitch: Mat3, width: number, height: number): Mat3 | null {
  const inv = invert3(imageToPitch);
  if (!inv) return null;
  const g = imageToPitch;
  const row = Math.abs(g[6]!) * width + Math.abs(g[7]!) * height + Math.abs(g[8]!);
  for (const [x, y] of [[width / 2, height], [width / 2, height / 2]] as const) {
    const w = g[6]! * x + g[7]! * y + g[8]!;
    if (Number.isFinite(w) && Math.abs(w) > 1e-9 * row) return inv.map((v) => v * Math.sign(w));
  }
  return null;
}

/** Where pitch point `p` is seen through a ground camera; null behind the camera or at the horizon. */
export function projectVisible(cam: Mat3, p: Pt): Pt | null {
  const scale = Math.max(Math.abs(cam[6]!), Math.abs(cam[7]!), Math.abs(cam[8]!));
  const w = cam[6]! * p[0] + cam[7]! * p[1] + cam[8]!;
  if (!(w > 1e-9 * scale)) return null;
  return apply(cam, p);
}

/** Liang–Barsky: the part of segment a → b inside [0, w] × [0, h], or null. */
export function clipSegment(a: Pt, b: Pt, w: number, h: number): [Pt, Pt] | null {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  let t0 = 0;
  let t1 = 1;
  for (const [p, q] of [[-dx, a[0]], [dx, w - a[0]], [-dy, a[1]], [dy, h - a[1]]] as const) {
    if (p === 0) {
      if (q < 0) return null;
    } else if (p < 0) t0 = Math.max(t0, q / p);
    else t1 = Math.min(t1, q / p);
  }
  if (t0 > t1 || !Number.isFinite(t0) || !Number.isFinite(t1)) return null;
  const at = (t: number): Pt => [Math.min(w, Math.max(0, a[0] + dx * t)), Math.min(h, Math.max(0, a[1] + dy * t))];
  return [at(t0), at(t1)];
}

/** A run of visible pixel points, clipped to the image: each piece inside becomes a polyline. */
export function clipRun(run: Pt[], w: number, h: number): Pt[][] {
  const out: Pt[][] = [];
  let cur: Pt[] = [];
  const flush = () => {
    if (cur.length > 1) out.push(cur);
    cur = [];
  };
  for (let i = 0; i + 1 < run.length; i++) {
    const s = clipSegment(run[i]!, run[i + 1]!, w, h);
    if (!s) {
      flush();
      continue;
    }
    const last = cur[cur.length - 1];
    // consecutive segments share their point, up to rounding in the clip
    if (!last || Math.abs(last[0] - s[0][0]) > 1e-6 || Math.abs(last[1] - s[0][1]) > 1e-6) {
      flush();
      cur = [s[0]];
    }
    cur.push(s[1]);
  }
  flush();
  return out;
}

/** One curve in pitch metres → polylines in pixels, split where it cannot be seen, clipped to the image. */
export function projectCurve(cam: Mat3, curve: Pt[], width: number, height: number): Pt[][] {
  const out: Pt[][] = [];
  let run: Pt[] = [];
  for (const p of curve) {
    const q = projectVisible(cam, p);
    if (q) run.push(q);
    else {
      out.push(...clipRun(run, width, height));
      run = [];
    }
  }
  out.push(...clipRun(run, width, height));
  return out;
}

/** The pitch model's lines in the pixels of a `width × height` image whose pixels map to the pitch by `imageToPitch`. */
export function projectPitchLines(imageToPitch: Mat3, width: number, height: number, step = 0.5): Pt[][] {
  const cam = groundCamera(imageToPitch, width, height);
  if (!cam) return [];
  return pitchModel(step).flatMap((c) => projectCurve(cam, c, width, height));
}

/** Eigen-decomposition of a symmetric matrix by cyclic Jacobi rotations: [eigenvalues, eigenvectors as columns]. */
function jacobiEigen(input: number[][]): [number[], number[][]] {
  const n = input.length;
  const a = input.map((r) => r.slice());
  const v = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j): number => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p]![q]! ** 2;
    if (off < 1e-30) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p]![q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q]![q]! - a[p]![p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k]![p]!;
          const akq = a[k]![q]!;
          a[k]![p] = c * akp - s * akq;
          a[k]![q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p]![k]!;
          const aqk = a[q]![k]!;
          a[p]![k] = c * apk - s * aqk;
          a[q]![k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k]![p]!;
          const vkq = v[k]![q]!;
          v[k]![p] = c * vkp - s * vkq;
          v[k]![q] = s * vkp + c * vkq;
        }
      }
    }
  }
  return [a.map((r, i) => r[i]!), v];
}

/** Hartley normalisation: centroid to the origin, mean distance √2. */
function normaliser(pts: Pt[]): { t: Mat3; tInv: Mat3 } | null {
  const cx = pts.reduce((s, p) => s + p[0], 0) / pts.length;
  const cy = pts.reduce((s, p) => s + p[1], 0) / pts.length;
  const mean = pts.reduce((s, p) => s + Math.hypot(p[0] - cx, p[1] - cy), 0) / pts.length;
  if (!(mean > 1e-9) || !Number.isFinite(mean)) return null;
  const k = Math.SQRT2 / mean;
  return { t: [k, 0, -k * cx, 0, k, -k * cy, 0, 0, 1], tInv: [1 / k, 0, cx, 0, 1 / k, cy, 0, 0, 1] };
}

/**
 * The image → pitch homography (row-major, scaled so that its last entry is 1 when it can be) that
 * best fits ≥ 4 pairs, by the normalised DLT; null with fewer pairs, non-finite input or a
 * degenerate set (e.g. three on one line among four).
 */
export function fitHomography(pairs: CalibrationPair[]): Mat3 | null {
  if (pairs.length < 4) return null;
  const src: Pt[] = pairs.map((p) => [p.pixel.x, p.pixel.y]);
  const dst: Pt[] = pairs.map((p) => [p.pitch.x, p.pitch.y]);
  if (![...src, ...dst].every((p) => Number.isFinite(p[0]) && Number.isFinite(p[1]))) return null;
  const ns = normaliser(src);
  const nd = normaliser(dst);
  if (!ns || !nd) return null;
  const ata = Array.from({ length: 9 }, () => new Array<number>(9).fill(0));
  const addRow = (r: number[]) => {
    for (let i = 0; i < 9; i++) for (let j = 0; j < 9; j++) ata[i]![j]! += r[i]! * r[j]!;
  };
  for (let i = 0; i < pairs.length; i++) {
    const [x, y] = apply(ns.t, src[i]!)!;
    const [u, v] = apply(nd.t, dst[i]!)!;
    addRow([x, y, 1, 0, 0, 0, -u * x, -u * y, -u]);
    addRow([0, 0, 0, x, y, 1, -v * x, -v * y, -v]);
  }
  const [values, vectors] = jacobiEigen(ata);
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  // a unique fit has one (near-)zero eigenvalue; a second one means the pairs do not pin it down
  const [smallest, next] = [order[0]!, order[1]!];
  const top = order[8]![0];
  if (!(next[0] > 1e-10 * top)) return null;
  const hn = vectors.map((row) => row[smallest[1]]!);
  const h = mul3(nd.tInv, mul3(hn, ns.t));
  const last = h[8]!;
  const scaled = Math.abs(last) > 1e-12 * Math.max(...h.map(Math.abs)) ? h.map((x) => x / last) : h;
  return scaled.every(Number.isFinite) && invert3(scaled) ? scaled : null;
}

/** Mean distance in metres between each pair's pitch point and where the homography puts its pixel. */
export function meanResidualM(imageToPitch: Mat3, pairs: CalibrationPair[]): number | null {
  if (!pairs.length) return null;
  let sum = 0;
  for (const p of pairs) {
    const q = apply(imageToPitch, [p.pixel.x, p.pixel.y]);
    if (!q) return null;
    sum += Math.hypot(q[0] - p.pitch.x, q[1] - p.pitch.y);
  }
  return sum / pairs.length;
}
