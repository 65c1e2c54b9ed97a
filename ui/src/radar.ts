// The radar: a contract frame becomes a plain scene (dots in pitch metres), and the scene is drawn
// on a 2D canvas. The adapter is pure and unit-tested; the painter knows nothing of the contract.

import type { FrameData } from './types';

export const PITCH_LENGTH_M = 105;
export const PITCH_WIDTH_M = 68;

export interface RadarDot {
  x: number; // metres from the left goal line
  y: number; // metres from the top touch line
  team: 'home' | 'away' | 'other';
  label: string;
  keeper: boolean;
}

export interface RadarScene {
  calibrated: boolean;
  /** fill colour per side: the match's learnt kits, else the fixed palette */
  colours: Record<RadarDot['team'], string>;
  players: RadarDot[];
  ball: { x: number; y: number; predicted: boolean } | null;
  trail: Array<{ x: number; y: number }>;
}

/** Maps a frame to radar coordinates: pitch metres, or pixels scaled onto the pitch when uncalibrated. */
export function sceneFromFrame(f: FrameData): RadarScene {
  const calibrated = f.coordinate_mode === 'pitch';
  const sx = PITCH_LENGTH_M / Math.max(1, f.width);
  const sy = PITCH_WIDTH_M / Math.max(1, f.height);
  const fromPixel = (x: number, y: number) => ({ x: x * sx, y: y * sy });
  const players: RadarDot[] = [];
  for (const p of f.players ?? []) {
    let pos: { x: number; y: number } | null = null;
    if (calibrated) {
      pos = p.pitch ?? null;
    } else if (p.bbox && p.bbox.length >= 4) {
      // Feet: bottom centre of the box.
      pos = fromPixel((p.bbox[0]! + p.bbox[2]!) / 2, p.bbox[3]!);
    }
    if (!pos) continue;
    players.push({
      x: pos.x,
      y: pos.y,
      team: p.team ?? 'other',
      label: String(p.track_id),
      keeper: p.class === 'goalkeeper',
    });
  }
  let ball: RadarScene['ball'] = null;
  if (f.ball) {
    const pos = calibrated ? f.ball.pitch : fromPixel(f.ball.pixel.x, f.ball.pixel.y);
    if (pos) ball = { x: pos.x, y: pos.y, predicted: !!f.ball.predicted };
  }
  const trail: RadarScene['trail'] = [];
  for (const t of f.trail ?? []) {
    const pos = calibrated ? t.pitch : fromPixel(t.x, t.y);
    if (pos) trail.push({ x: pos.x, y: pos.y });
  }
  return { calibrated, colours: sideColours(f.kits), players, ball, trail };
}

export const TEAM_COLOURS: Record<RadarDot['team'], string> = {
  home: '#e4572e',
  away: '#3f88c5',
  other: '#d9d9d9',
};

const HEX = /^#[0-9a-fA-F]{6}$/;

/** The frame's kit colours where they are well-formed `#rrggbb`, the palette otherwise. */
export function sideColours(kits: FrameData['kits']): Record<RadarDot['team'], string> {
  const ok = (c: unknown): c is string => typeof c === 'string' && HEX.test(c);
  return {
    home: ok(kits?.home) ? kits!.home : TEAM_COLOURS.home,
    away: ok(kits?.away) ? kits!.away : TEAM_COLOURS.away,
    other: TEAM_COLOURS.other,
  };
}

/** Black or white, whichever reads better on `#rrggbb` (relative luminance). */
export function labelColour(fill: string): string {
  const v = (i: number) => {
    const c = parseInt(fill.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const lum = 0.2126 * v(0) + 0.7152 * v(1) + 0.0722 * v(2);
  return lum > 0.35 ? '#111' : '#fff';
}

/** Paints the pitch and the scene, fitting the canvas (CSS size × devicePixelRatio). */
export function drawRadar(canvas: HTMLCanvasElement, scene: RadarScene | null): void {
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  const dpr = globalThis.devicePixelRatio || 1;
  const cssW = canvas.clientWidth || 525;
  const cssH = cssW * (PITCH_WIDTH_M / PITCH_LENGTH_M);
  if (canvas.width !== Math.round(cssW * dpr) || canvas.height !== Math.round(cssH * dpr)) {
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
    canvas.style.height = `${cssH}px`;
  }
  const k = (cssW / PITCH_LENGTH_M) * dpr; // px per metre
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = '#2f7d32';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.setTransform(k, 0, 0, k, 0, 0);
  drawPitchLines(ctx, k);
  if (!scene) return;
  // trail
  if (scene.trail.length > 1) {
    ctx.lineWidth = 2 / k;
    for (let i = 1; i < scene.trail.length; i++) {
      const a = scene.trail[i - 1]!;
      const b = scene.trail[i]!;
      ctx.strokeStyle = `rgba(255,235,59,${(0.15 + (0.7 * i) / scene.trail.length).toFixed(2)})`;
      ctx.beginPath();
      ctx.moveTo(a.x, a.y);
      ctx.lineTo(b.x, b.y);
      ctx.stroke();
    }
  }
  // players
  const r = 1.3;
  ctx.font = `${1.5}px system-ui, sans-serif`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (const p of scene.players) {
    ctx.beginPath();
    ctx.arc(p.x, p.y, r, 0, Math.PI * 2);
    const fill = scene.colours[p.team];
    ctx.fillStyle = fill;
    ctx.fill();
    ctx.lineWidth = (p.keeper ? 3 : 1.5) / k;
    ctx.strokeStyle = p.keeper ? '#ffeb3b' : '#111';
    ctx.stroke();
    ctx.fillStyle = labelColour(fill);
    ctx.fillText(p.label, p.x, p.y + 0.1);
  }
  // ball
  if (scene.ball) {
    const b = scene.ball;
    ctx.beginPath();
    ctx.arc(b.x, b.y, 0.9, 0, Math.PI * 2);
    if (b.predicted) {
      ctx.setLineDash([0.6, 0.5]);
      ctx.lineWidth = 3 / k;
      ctx.strokeStyle = '#ffeb3b';
      ctx.stroke();
      ctx.setLineDash([]);
    } else {
      ctx.fillStyle = '#ffffff';
      ctx.fill();
      ctx.lineWidth = 2 / k;
      ctx.strokeStyle = '#000';
      ctx.stroke();
    }
  }
}

function drawPitchLines(ctx: CanvasRenderingContext2D, k: number): void {
  const L = PITCH_LENGTH_M;
  const W = PITCH_WIDTH_M;
  ctx.strokeStyle = 'rgba(255,255,255,0.8)';
  ctx.lineWidth = 1.5 / k;
  ctx.strokeRect(0.5, 0.5, L - 1, W - 1);
  ctx.beginPath();
  ctx.moveTo(L / 2, 0.5);
  ctx.lineTo(L / 2, W - 0.5);
  ctx.stroke();
  ctx.beginPath();
  ctx.arc(L / 2, W / 2, 9.15, 0, Math.PI * 2);
  ctx.stroke();
  const box = (x: number, depth: number, width: number) =>
    ctx.strokeRect(x, (W - width) / 2, depth, width);
  box(0.5, 16.5, 40.32);
  box(L - 0.5 - 16.5, 16.5, 40.32);
  box(0.5, 5.5, 18.32);
  box(L - 0.5 - 5.5, 5.5, 18.32);
  ctx.fillStyle = 'rgba(255,255,255,0.8)';
  for (const [x, y] of [[L / 2, W / 2], [11, W / 2], [L - 11, W / 2]] as const) {
    ctx.beginPath();
    ctx.arc(x, y, 0.35, 0, Math.PI * 2);
    ctx.fill();
  }
}

/** Named landmarks of a 105×68 pitch for calibration (x along the length, y from the top line). */
export const LANDMARKS: Array<{ name: string; x: number; y: number }> = (() => {
  const L = PITCH_LENGTH_M;
  const W = PITCH_WIDTH_M;
  const pa = (W - 40.32) / 2;
  const ga = (W - 18.32) / 2;
  return [
    { name: 'Top-left corner', x: 0, y: 0 },
    { name: 'Top-right corner', x: L, y: 0 },
    { name: 'Bottom-left corner', x: 0, y: W },
    { name: 'Bottom-right corner', x: L, y: W },
    { name: 'Halfway line, top', x: L / 2, y: 0 },
    { name: 'Halfway line, bottom', x: L / 2, y: W },
    { name: 'Centre spot', x: L / 2, y: W / 2 },
    { name: 'Centre circle, top', x: L / 2, y: W / 2 - 9.15 },
    { name: 'Centre circle, bottom', x: L / 2, y: W / 2 + 9.15 },
    { name: 'Left penalty spot', x: 11, y: W / 2 },
    { name: 'Right penalty spot', x: L - 11, y: W / 2 },
    { name: 'Left penalty area, top-outer', x: 16.5, y: pa },
    { name: 'Left penalty area, bottom-outer', x: 16.5, y: W - pa },
    { name: 'Left penalty area, top on goal line', x: 0, y: pa },
    { name: 'Left penalty area, bottom on goal line', x: 0, y: W - pa },
    { name: 'Right penalty area, top-outer', x: L - 16.5, y: pa },
    { name: 'Right penalty area, bottom-outer', x: L - 16.5, y: W - pa },
    { name: 'Right penalty area, top on goal line', x: L, y: pa },
    { name: 'Right penalty area, bottom on goal line', x: L, y: W - pa },
    { name: 'Left goal area, top-outer', x: 5.5, y: ga },
    { name: 'Left goal area, bottom-outer', x: 5.5, y: W - ga },
    { name: 'Right goal area, top-outer', x: L - 5.5, y: ga },
    { name: 'Right goal area, bottom-outer', x: L - 5.5, y: W - ga },
  ];
})();
