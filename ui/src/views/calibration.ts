// Calibration (operator). Automatic first: the server finds the pitch in the still, the page draws
// the pitch model through the camera it found over the still, and the operator uses it (its pairs
// are saved) or refines it. By hand: click a landmark on the still, say which pitch point it is,
// repeat for ≥ 4, save; the server answers with the reprojection error. Whenever ≥ 4 pairs are
// listed (and no unedited automatic result is shown) the model drawn follows a homography fitted to
// them, so the operator sees whether the clicks agree with the lines. Pixel coordinates can also be
// typed, so the page works from the keyboard.

import { api, ApiError } from '../api';
import { findPitch, toStillPixels, type AutoCalibration } from '../autoCalibration';
import { clear, field, h } from '../dom';
import { fitHomography, meanResidualM, projectPitchLines, type Mat3 } from '../pitchModel';
import { LANDMARKS } from '../radar';
import type { CalibrationPair } from '../types';
import { errText } from './match';

const SVG_NS = 'http://www.w3.org/2000/svg';

export function calibrationView(root: HTMLElement, matchId: string): () => void {
  clear(root);
  let pairs: CalibrationPair[] = [];
  /** The automatic result drawn, until the pairs are edited (then the drawing follows the pairs). */
  let auto: AutoCalibration | null = null;
  /** The time of the still shown, which the automatic search looks at. */
  let stillT: number | null = null;
  const msg = h('p', { class: 'form-msg', role: 'status' });
  const stillMsg = h('p', { class: 'form-msg', role: 'status' });
  const errorOut = h('p', { class: 'reproj', 'aria-live': 'polite' });
  const t = h('input', { type: 'number', name: 't', min: '0', step: '0.5', value: '0' });
  const img = h('img', { class: 'still', alt: 'A frame of the match video: click a landmark', draggable: false });
  const marker = h('div', { class: 'click-marker', hidden: true, 'aria-hidden': 'true' });
  // the pitch model as the camera sees it, in the still's natural pixels (viewBox), scaled with it
  const lines = document.createElementNS(SVG_NS, 'svg');
  lines.setAttribute('class', 'pitch-lines');
  lines.setAttribute('aria-hidden', 'true');
  lines.setAttribute('preserveAspectRatio', 'none');
  const stillWrap = h('div', { class: 'still-wrap' }, img, lines, marker);
  const linesMsg = h('p', { class: 'muted lines-msg', 'aria-live': 'polite' });
  const autoBtn = h('button', { type: 'button', class: 'primary' }, 'Find the pitch automatically');
  const autoMsg = h('p', { class: 'form-msg', role: 'status' });
  const useAuto = h('button', { type: 'button', class: 'primary', hidden: true }, 'Use this calibration');
  const overlay = h('div', { class: 'pair-markers', 'aria-hidden': 'true' });
  stillWrap.append(overlay);
  const px = h('input', { type: 'number', name: 'px', step: '0.1' });
  const py = h('input', { type: 'number', name: 'py', step: '0.1' });
  const landmark = h(
    'select',
    { name: 'landmark' },
    LANDMARKS.map((l, i) => h('option', { value: String(i) }, `${l.name} (${l.x.toFixed(1)}, ${l.y.toFixed(1)})`)),
  );
  const list = h('ol', { class: 'pairs', 'aria-label': 'Landmark pairs' });
  const save = h('button', { type: 'button', class: 'primary' }, 'Save calibration');

  let objectUrl: string | null = null;
  const loadStill = async () => {
    stillMsg.textContent = 'Reading a still from the video…';
    const at = Number(t.value) || 0;
    try {
      const url = await api.stillObjectUrl(matchId, at);
      if (objectUrl) URL.revokeObjectURL(objectUrl);
      objectUrl = url;
      stillT = at;
      // an automatic result belongs to the still it was found in
      dropAuto();
      img.src = url;
      stillWrap.hidden = false;
    } catch (e) {
      stillWrap.hidden = true;
      stillT = null;
      stillMsg.textContent = `No still: ${errText(e)}. Type the pixel coordinates of each landmark instead.`;
    }
  };
  img.addEventListener('load', () => {
    stillMsg.textContent = `Still ${img.naturalWidth}×${img.naturalHeight} px: find the pitch automatically, or click a landmark, then pick which one it is.`;
    renderPairs();
  });
  img.addEventListener('click', (ev) => {
    const r = img.getBoundingClientRect();
    const sx = img.naturalWidth / r.width;
    const sy = img.naturalHeight / r.height;
    px.value = ((ev.clientX - r.left) * sx).toFixed(1);
    py.value = ((ev.clientY - r.top) * sy).toFixed(1);
    placeMarker();
    landmark.focus();
  });
  const placeMarker = () => {
    if (!px.value || !py.value || !img.naturalWidth) return;
    marker.hidden = false;
    marker.style.left = `${(Number(px.value) / img.naturalWidth) * 100}%`;
    marker.style.top = `${(Number(py.value) / img.naturalHeight) * 100}%`;
  };
  px.addEventListener('input', placeMarker);
  py.addEventListener('input', placeMarker);

  function renderPairs(): void {
    list.replaceChildren(
      ...pairs.map((p, i) =>
        h(
          'li',
          {},
          `pixel (${p.pixel.x.toFixed(1)}, ${p.pixel.y.toFixed(1)}) → pitch (${p.pitch.x.toFixed(1)}, ${p.pitch.y.toFixed(1)}) m `,
          h('button', { type: 'button', class: 'small', 'aria-label': `Remove pair ${i + 1}`, onclick: () => { pairs.splice(i, 1); pairsEdited(); } }, 'Remove'),
        ),
      ),
    );
    clear(overlay);
    if (img.naturalWidth) {
      pairs.forEach((p, i) => {
        const dot = h('span', { class: 'pair-dot' }, String(i + 1));
        dot.style.left = `${(p.pixel.x / img.naturalWidth) * 100}%`;
        dot.style.top = `${(p.pixel.y / img.naturalHeight) * 100}%`;
        overlay.append(dot);
      });
    }
    save.disabled = pairs.length < 4;
    save.title = pairs.length < 4 ? `${4 - pairs.length} more pair(s) needed` : '';
    useAuto.disabled = pairs.length < 4;
    drawLines();
  }

  /** The camera drawn: the automatic result while it is unedited, else a fit to ≥ 4 pairs. */
  function drawnCamera(): { m: Mat3; from: 'auto' | 'pairs' } | null {
    if (auto) return { m: auto.imageToPitch, from: 'auto' };
    const m = fitHomography(pairs);
    return m ? { m, from: 'pairs' } : null;
  }

  function drawLines(): void {
    clear(lines);
    const w = img.naturalWidth;
    const hgt = img.naturalHeight;
    const cam = w && hgt ? drawnCamera() : null;
    if (!cam) {
      lines.setAttribute('hidden', '');
      linesMsg.textContent = pairs.length >= 4 && w ? 'These pairs do not fit a camera: check that no three lie on one line.' : '';
      return;
    }
    lines.removeAttribute('hidden');
    lines.setAttribute('viewBox', `0 0 ${w} ${hgt}`);
    for (const pl of projectPitchLines(cam.m, w, hgt)) {
      const el = document.createElementNS(SVG_NS, 'polyline');
      el.setAttribute('points', pl.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' '));
      lines.append(el);
    }
    if (cam.from === 'auto') {
      linesMsg.textContent = 'Cyan lines: the pitch as the automatic calibration sees it.';
    } else {
      const off = meanResidualM(cam.m, pairs);
      linesMsg.textContent = `Cyan lines: the pitch as your ${pairs.length} pairs see it${off === null ? '' : ` (pairs ${off.toFixed(2)} m off on average)`}.`;
    }
  }

  function dropAuto(): void {
    auto = null;
    useAuto.hidden = true;
  }

  /** The operator changed the pairs: the drawing follows them from now on. */
  function pairsEdited(): void {
    dropAuto();
    renderPairs();
  }

  // not disabled while it runs: a disabled button would drop the keyboard focus
  let searching = false;
  autoBtn.addEventListener('click', async () => {
    if (searching) return;
    searching = true;
    autoBtn.setAttribute('aria-busy', 'true');
    autoMsg.textContent = 'Looking for the pitch lines in the still…';
    const out = await findPitch(matchId, stillT ?? (Number(t.value) || 0));
    searching = false;
    autoBtn.removeAttribute('aria-busy');
    if (out.kind === 'found') {
      const r = img.naturalWidth ? toStillPixels(out.result, { width: img.naturalWidth, height: img.naturalHeight }) : out.result;
      auto = r;
      pairs = r.pairs.map((p) => ({ pixel: { ...p.pixel }, pitch: { ...p.pitch } }));
      useAuto.hidden = false;
      renderPairs();
      autoMsg.textContent = `Found the pitch (confidence ${Math.round(r.confidence * 100)} %, ${r.pairs.length} landmarks). Check that the cyan lines lie on the pitch's lines, then use this calibration, or refine it by adding or removing pairs below.`;
      useAuto.focus();
    } else if (out.kind === 'none') {
      dropAuto();
      renderPairs();
      // the server's reason starts "no pitch found in the still: …"
      autoMsg.textContent = `${out.message.charAt(0).toUpperCase()}${out.message.slice(1)}. Click the landmarks below instead (or try another video time).`;
    } else {
      autoMsg.textContent = errText(out.error);
    }
  });

  const addForm = h(
    'form',
    { class: 'inline-form' },
    h('div', { class: 'row' }, field('Pixel x', px), field('Pixel y', py), field('Pitch landmark', landmark)),
    h('button', { type: 'submit' }, 'Add pair'),
  );
  addForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (px.value === '' || py.value === '') {
      msg.textContent = 'Click the still (or type the pixel) first.';
      return;
    }
    const l = LANDMARKS[Number(landmark.value)]!;
    pairs.push({ pixel: { x: Number(px.value), y: Number(py.value) }, pitch: { x: l.x, y: l.y } });
    px.value = '';
    py.value = '';
    marker.hidden = true;
    if (Number(landmark.value) + 1 < LANDMARKS.length) landmark.value = String(Number(landmark.value) + 1);
    pairsEdited();
    msg.textContent = `${pairs.length} pair(s)${pairs.length < 4 ? `; ${4 - pairs.length} more needed` : ''}`;
  });

  /** The one save path, for clicked pairs and for the automatic result's pairs. */
  async function savePairs(): Promise<boolean> {
    msg.textContent = 'Saving…';
    try {
      const c = await api.putCalibration(matchId, pairs);
      pairs = c.pairs;
      renderPairs();
      showError(c.reprojectionErrorPx);
      msg.textContent = 'Calibration saved';
      return true;
    } catch (e) {
      msg.textContent = errText(e);
      if (e instanceof ApiError && Object.keys(e.fields).length) msg.textContent += ` — ${Object.values(e.fields).join('; ')}`;
      return false;
    }
  }
  save.addEventListener('click', () => void savePairs());
  useAuto.addEventListener('click', async () => {
    if (await savePairs()) {
      useAuto.hidden = true;
      autoMsg.textContent = 'The automatic calibration is saved.';
    }
  });

  function showError(err: number | null): void {
    errorOut.textContent =
      err === null ? 'Not calibrated yet.' : `Reprojection error: ${err.toFixed(2)} px${err > 5 ? ' (high: check the pairs)' : ''}`;
  }

  root.append(
    h('p', {}, h('a', { href: `#/match/${matchId}` }, '← Back to the match')),
    h('h1', {}, 'Calibrate the pitch'),
    h('div', { class: 'row still-row' }, field('Video time (s)', t), h('button', { type: 'button', onclick: () => void loadStill() }, 'Load still')),
    stillMsg,
    h(
      'section',
      { class: 'auto-cal', 'aria-labelledby': 'auto-cal-h' },
      h('h2', { id: 'auto-cal-h' }, 'Automatic'),
      h('p', { class: 'muted' }, 'Finds the pitch lines in the still and draws the pitch over it: use it if the lines sit on the pitch.'),
      h('div', { class: 'actions' }, autoBtn, useAuto),
      autoMsg,
    ),
    stillWrap,
    linesMsg,
    h('h2', {}, 'By hand'),
    h('p', { class: 'muted' }, 'Pick at least 4 landmarks that are not on one line. The pitch is 105 × 68 m: x along the length from the left goal line, y from the top touch line.'),
    addForm,
    list,
    h('div', { class: 'actions' }, save, h('button', { type: 'button', onclick: () => { pairs = []; pairsEdited(); } }, 'Clear pairs')),
    errorOut,
    msg,
  );

  api.getCalibration(matchId).then(
    (c) => {
      pairs = c.pairs ?? [];
      renderPairs();
      showError(c.reprojectionErrorPx);
    },
    (e) => {
      if (!(e instanceof ApiError && e.status === 404)) msg.textContent = errText(e);
      renderPairs();
    },
  );
  void loadStill();
  return () => {
    if (objectUrl) URL.revokeObjectURL(objectUrl);
  };
}
