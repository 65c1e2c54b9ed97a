// Create or edit a match (operator). Validation errors from the API appear beside their fields.

import { api, ApiError, type MatchInput } from '../api';
import { clear, field, h, showFieldErrors } from '../dom';
import type { MatchDto, VideoSourceType } from '../types';
import { errText } from './match';

const SOURCE_TYPES: Array<[VideoSourceType | '', string, string]> = [
  ['', 'None yet', ''],
  ['file', 'File on the server', '/videos/final.mp4'],
  ['http', 'HTTP(S) / HLS URL', 'https://example.org/live.m3u8'],
  ['rtmp', 'RTMP', 'rtmp://host/app/stream'],
  ['rtsp', 'RTSP', 'rtsp://camera/stream'],
  ['srt', 'SRT', 'srt://host:9000'],
  ['device', 'Capture device', '/dev/video0'],
  ['synthetic', 'Synthetic demo (seed)', '7'],
];

/** `datetime-local` value ↔ RFC 3339 (UTC). */
export function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
export function fromLocalInput(v: string): string | null {
  if (!v) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function matchFormView(root: HTMLElement, matchId: string | null): () => void {
  clear(root);
  const title = h('h1', {}, matchId ? 'Edit match' : 'New match');
  const msg = h('p', { class: 'form-msg', role: 'status' });
  const homeTeam = h('input', { name: 'homeTeam', required: true, autocomplete: 'off' });
  const awayTeam = h('input', { name: 'awayTeam', required: true, autocomplete: 'off' });
  const name = h('input', { name: 'name', autocomplete: 'off' });
  const sport = h('input', { name: 'sport', value: 'football', list: 'sports' });
  const competition = h('input', { name: 'competition', autocomplete: 'off' });
  const startTime = h('input', { name: 'startTime', type: 'datetime-local' });
  const endTime = h('input', { name: 'endTime', type: 'datetime-local' });
  const srcType = h('select', { name: 'videoSource' }, SOURCE_TYPES.map(([v, l]) => h('option', { value: v }, l)));
  const srcValue = h('input', { name: 'videoSource.value', autocomplete: 'off' });
  // In the desktop app (Tauri with the dialog plugin exposed as a global) a local file picker
  // fills the path; browsers type it.
  const picker = desktopFilePicker();
  const browse = picker
    ? h('button', { type: 'button', onclick: async () => {
        const path = await picker();
        if (path) {
          srcType.value = 'file';
          syncPlaceholder();
          srcValue.value = path;
        }
      } }, 'Browse…')
    : null;
  const syncPlaceholder = () => {
    const found = SOURCE_TYPES.find(([v]) => v === srcType.value);
    srcValue.placeholder = found?.[2] ?? '';
    srcValue.disabled = srcType.value === '';
    srcValue.type = srcType.value === 'synthetic' ? 'number' : 'text';
  };
  srcType.addEventListener('change', syncPlaceholder);
  syncPlaceholder();
  const submit = h('button', { type: 'submit', class: 'primary' }, matchId ? 'Save' : 'Create match');
  const form = h(
    'form',
    { class: 'match-form', novalidate: true },
    h('datalist', { id: 'sports' }, ['football', 'futsal', 'hockey', 'rugby', 'basketball'].map((s) => h('option', { value: s }))),
    h('div', { class: 'row' }, field('Home team', homeTeam), field('Away team', awayTeam)),
    h('div', { class: 'row' }, field('Name', name, 'defaults to “Home v Away”'), field('Sport', sport), field('Competition', competition)),
    h('div', { class: 'row' }, field('Kick-off', startTime), field('End', endTime)),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Video source'),
      h('div', { class: 'row' }, field('Kind', srcType), field('Path, URL, device or seed', srcValue, 'a file path on the server machine, a stream URL, or a seed number for the demo'), browse),
    ),
    h('div', { class: 'actions' }, submit, h('a', { class: 'button', href: matchId ? `#/match/${matchId}` : '#/' }, 'Cancel')),
    msg,
  );
  root.append(title, form);

  function fill(m: MatchDto): void {
    homeTeam.value = m.homeTeam;
    awayTeam.value = m.awayTeam;
    name.value = m.name;
    sport.value = m.sport;
    competition.value = m.competition ?? '';
    startTime.value = toLocalInput(m.startTime);
    endTime.value = toLocalInput(m.endTime);
    srcType.value = m.videoSource?.type ?? '';
    srcValue.value = m.videoSource ? String(m.videoSource.value) : '';
    syncPlaceholder();
  }
  if (matchId) {
    api.getMatch(matchId).then(fill, (e) => (msg.textContent = errText(e)));
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    // Client-side checks for the obvious; the server's 400 names the rest.
    const local: Record<string, string> = {};
    if (!homeTeam.value.trim()) local.homeTeam = 'home team is required';
    if (!awayTeam.value.trim()) local.awayTeam = 'away team is required';
    if (srcType.value && !srcValue.value.trim()) local['videoSource.value'] = 'say where the video comes from';
    if (srcType.value === 'synthetic' && !/^\d+$/.test(srcValue.value.trim())) local['videoSource.value'] = 'a seed is a whole number';
    showFieldErrors(form, local);
    if (Object.keys(local).length) {
      msg.textContent = 'Please fix the fields marked.';
      form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    const body: MatchInput = {
      homeTeam: homeTeam.value.trim(),
      awayTeam: awayTeam.value.trim(),
      sport: sport.value.trim() || undefined,
      name: name.value.trim() || undefined,
      competition: competition.value.trim() || null,
      startTime: fromLocalInput(startTime.value),
      endTime: fromLocalInput(endTime.value),
      videoSource: srcType.value
        ? {
            type: srcType.value as VideoSourceType,
            value: srcType.value === 'synthetic' ? Number(srcValue.value) : srcValue.value.trim(),
          }
        : null,
    };
    submit.disabled = true;
    msg.textContent = 'Saving…';
    try {
      const m = matchId ? await api.updateMatch(matchId, body) : await api.createMatch(body);
      location.hash = `#/match/${m.id}`;
    } catch (e) {
      msg.textContent = errText(e);
      if (e instanceof ApiError) {
        showFieldErrors(form, e.fields);
        form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      }
    } finally {
      submit.disabled = false;
    }
  });
  homeTeam.focus();
  return () => {};
}

type TauriDialog = { open: (o: Record<string, unknown>) => Promise<string | string[] | null> };

/** The desktop's file picker, when this page runs inside the Tauri webview. */
function desktopFilePicker(): (() => Promise<string | null>) | null {
  const dialog = (globalThis as { __TAURI__?: { dialog?: TauriDialog } }).__TAURI__?.dialog;
  if (!dialog?.open) return null;
  return async () => {
    const r = await dialog.open({
      multiple: false,
      directory: false,
      filters: [{ name: 'Video', extensions: ['mp4', 'mkv', 'mov', 'avi', 'ts', 'webm', 'm3u8'] }],
    });
    return Array.isArray(r) ? (r[0] ?? null) : r;
  };
}
