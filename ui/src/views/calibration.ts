// Calibration (operator): click a landmark on a still of the match video, say which pitch point it
// is, repeat for ≥ 4, save; the server answers with the reprojection error. Pixel coordinates can
// also be typed, so the page works from the keyboard.

import { api, ApiError } from '../api';
import { clear, field, h } from '../dom';
import { LANDMARKS } from '../radar';
import type { CalibrationPair } from '../types';
import { errText } from './match';

export function calibrationView(root: HTMLElement, matchId: string): () => void {
  clear(root);
  let pairs: CalibrationPair[] = [];
  const msg = h('p', { class: 'form-msg', role: 'status' });
  const stillMsg = h('p', { class: 'form-msg', role: 'status' });
  const errorOut = h('p', { class: 'reproj', 'aria-live': 'polite' });
  const t = h('input', { type: 'number', name: 't', min: '0', step: '0.5', value: '0' });
  const img = h('img', { class: 'still', alt: 'A frame of the match video: click a landmark', draggable: false });
  const marker = h('div', { class: 'click-marker', hidden: true, 'aria-hidden': 'true' });
  const stillWrap = h('div', { class: 'still-wrap' }, img, marker);
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
    try {
      const url = await api.stillObjectUrl(matchId, Number(t.value) || 0);
      if (objectUrl) URL.revokeObjectURL(objectUrl);
      objectUrl = url;
      img.src = url;
      stillWrap.hidden = false;
    } catch (e) {
      stillWrap.hidden = true;
      stillMsg.textContent = `No still: ${errText(e)}. Type the pixel coordinates of each landmark instead.`;
    }
  };
  img.addEventListener('load', () => {
    stillMsg.textContent = `Still ${img.naturalWidth}×${img.naturalHeight} px: click a landmark, then pick which one it is.`;
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
          h('button', { type: 'button', class: 'small', 'aria-label': `Remove pair ${i + 1}`, onclick: () => { pairs.splice(i, 1); renderPairs(); } }, 'Remove'),
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
  }

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
    renderPairs();
    msg.textContent = `${pairs.length} pair(s)${pairs.length < 4 ? `; ${4 - pairs.length} more needed` : ''}`;
  });

  save.addEventListener('click', async () => {
    msg.textContent = 'Saving…';
    try {
      const c = await api.putCalibration(matchId, pairs);
      pairs = c.pairs;
      renderPairs();
      showError(c.reprojectionErrorPx);
      msg.textContent = 'Calibration saved';
    } catch (e) {
      msg.textContent = errText(e);
      if (e instanceof ApiError && Object.keys(e.fields).length) msg.textContent += ` — ${Object.values(e.fields).join('; ')}`;
    }
  });

  function showError(err: number | null): void {
    errorOut.textContent =
      err === null ? 'Not calibrated yet.' : `Reprojection error: ${err.toFixed(2)} px${err > 5 ? ' (high: check the pairs)' : ''}`;
  }

  root.append(
    h('p', {}, h('a', { href: `#/match/${matchId}` }, '← Back to the match')),
    h('h1', {}, 'Calibrate the pitch'),
    h('p', { class: 'muted' }, 'Pick at least 4 landmarks that are not on one line. The pitch is 105 × 68 m: x along the length from the left goal line, y from the top touch line.'),
    h('div', { class: 'row still-row' }, field('Video time (s)', t), h('button', { type: 'button', onclick: () => void loadStill() }, 'Load still')),
    stillMsg,
    stillWrap,
    addForm,
    list,
    h('div', { class: 'actions' }, save, h('button', { type: 'button', onclick: () => { pairs = []; renderPairs(); } }, 'Clear pairs')),
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
