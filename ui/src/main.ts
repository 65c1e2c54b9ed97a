// The app shell: header (brand, connection badge, operator token), a hash router, the
// "connection lost" modal. Hash routes keep the API's static serving trivial (everything is `/`).

import './styles.css';
import { h } from './dom';
import { getHub } from './hub';
import { getOperatorToken, getViewerToken, isOperator, onTokenChange, setOperatorToken, setViewerToken } from './token';
import { OPEN_VIDEO_PATH, inDesktop } from './video';
import { badge } from './views/badge';
import { calibrationView } from './views/calibration';
import { centreView } from './views/centre';
import { matchView } from './views/match';
import { matchFormView } from './views/matchForm';

const hub = getHub();

const app = document.getElementById('app')!;
const main = h('main', { id: 'main', tabindex: '-1' });
const connBadge = badge('Connection');
const opButton = h('button', { type: 'button', class: 'op-toggle', 'aria-haspopup': 'dialog' });
const header = h(
  'header',
  { class: 'top' },
  h('a', { href: '#/', class: 'brand' }, 'sportz'),
  h('nav', { 'aria-label': 'Main' }, h('a', { href: '#/' }, 'Matches')),
  h('div', { class: 'top-right' }, connBadge.el, opButton),
);
app.append(header, main);

// ---------------------------------------------------------------- notices from the desktop shell
// The desktop app says here what it could not do (e.g. a dropped file that is not a video).
const toast = h('div', { class: 'notice toast', role: 'alert', hidden: true, 'data-testid': 'toast' });
app.append(toast);
let toastTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('sportz-notice', (e) => {
  const detail = (e as CustomEvent<unknown>).detail;
  toast.textContent = typeof detail === 'string' ? detail : 'Something went wrong.';
  toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (toast.hidden = true), 10_000);
});

// ---------------------------------------------------------------- operator token dialog
const tokenInput = h('input', { id: 'op-token', type: 'password', autocomplete: 'off', name: 'token' });
const viewerInput2 = h('input', { id: 'viewer-token-2', type: 'password', autocomplete: 'off', name: 'viewerToken' });
const tokenDialog = h(
  'dialog',
  { class: 'modal', 'aria-labelledby': 'tok-h' },
  h(
    'form',
    { method: 'dialog' },
    h('h2', { id: 'tok-h' }, 'Operator mode'),
    h('p', { class: 'muted' }, 'Paste the operator token the server printed at its first start. It stays in this browser.'),
    h('div', { class: 'field' }, h('label', { for: 'op-token' }, 'Operator token'), tokenInput),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'viewer-token-2' }, 'Viewer token (only if the server requires one)'),
      viewerInput2,
    ),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', value: 'save', class: 'primary' }, 'Save'),
      h('button', { type: 'submit', value: 'clear' }, 'Forget tokens'),
      h('button', { type: 'submit', value: 'cancel' }, 'Cancel'),
    ),
  ),
);
document.body.append(tokenDialog);
tokenDialog.addEventListener('close', () => {
  if (tokenDialog.returnValue === 'save') {
    if (viewerInput2.value.trim()) setViewerToken(viewerInput2.value);
    if (tokenInput.value.trim()) setOperatorToken(tokenInput.value);
  }
  if (tokenDialog.returnValue === 'clear') {
    setViewerToken(null);
    setOperatorToken(null);
  }
  tokenInput.value = '';
  viewerInput2.value = '';
  opButton.focus();
});
opButton.addEventListener('click', () => {
  viewerInput2.placeholder = getViewerToken() ? '(saved)' : '';
  tokenInput.placeholder = getOperatorToken() ? '(saved)' : '';
  tokenDialog.showModal();
});
function renderOpButton(): void {
  const on = !!getOperatorToken();
  opButton.textContent = on ? 'Operator ✓' : 'Operator';
  opButton.setAttribute('aria-label', on ? 'Operator mode on: change or forget the token' : 'Enter operator token');
}
renderOpButton();

// ---------------------------------------------------------------- connection lost modal
const lostReason = h('p', {});
// A server that requires a viewer token closes /ws with 4401: ask for it here.
const viewerInput = h('input', { id: 'viewer-token', type: 'password', autocomplete: 'off' });
const viewerField = h(
  'div',
  { class: 'field', hidden: true },
  h('label', { for: 'viewer-token' }, 'Viewer token'),
  viewerInput,
);
const retry = h(
  'button',
  {
    type: 'button',
    class: 'primary',
    onclick: () => {
      if (!viewerField.hidden && viewerInput.value.trim()) {
        setViewerToken(viewerInput.value);
      }
      lostDialog.close();
      hub.connect();
    },
  },
  'Retry now',
);
const lostDialog = h(
  'dialog',
  { class: 'modal', 'aria-labelledby': 'lost-h', 'data-testid': 'disconnected-modal' },
  h('h2', { id: 'lost-h' }, 'Connection lost'),
  lostReason,
  viewerField,
  h('p', { class: 'muted' }, 'Live updates are paused until the connection is back.'),
  h('div', { class: 'actions' }, retry, h('button', { type: 'button', onclick: () => lostDialog.close() }, 'Dismiss')),
);
document.body.append(lostDialog);
hub.onState((state, detail) => {
  connBadge.set(state, detail);
  if (state === 'disconnected' && detail.reason && !lostDialog.open) {
    lostReason.textContent = `The live connection to the server stopped: ${detail.reason}.`;
    viewerField.hidden = detail.closeCode !== 4401;
    lostDialog.showModal();
    (viewerField.hidden ? retry : viewerInput).focus();
  }
  if (state === 'connected' && lostDialog.open) lostDialog.close();
});

// ---------------------------------------------------------------- router
let dispose: () => void = () => {};
function route(): void {
  dispose();
  // a route's own parameters (`?player=` of a replay) are not part of it
  const hash = location.hash.replace(/^#/, '').split('?')[0] || '/';
  const parts = hash.split('/').filter(Boolean);
  document.title = 'sportz';
  if (parts[0] === 'match' && parts[1]) {
    const id = decodeURIComponent(parts[1]);
    if (parts[2] === 'edit') dispose = matchFormView(main, id);
    else if (parts[2] === 'calibrate') dispose = calibrationView(main, id);
    else if (parts[2] === 'replay' && parts[3]) dispose = matchView(main, id, decodeURIComponent(parts[3]));
    else dispose = matchView(main, id);
  } else if (parts[0] === 'new') {
    dispose = matchFormView(main, null);
  } else {
    dispose = centreView(main);
  }
  // Move focus to the new page for keyboard and screen-reader users (not on first load).
  // A view that focused a field itself (the match form) keeps that focus.
  if (routed && !main.contains(document.activeElement)) main.focus({ preventScroll: false });
  routed = true;
}
let routed = false;
window.addEventListener('hashchange', route);
// the desktop app's own window: Ctrl+O shows its native "Open a video" dialog
document.addEventListener('keydown', (e) => {
  if (inDesktop() && isOperator() && (e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'o') {
    e.preventDefault();
    location.assign(OPEN_VIDEO_PATH);
  }
});
onTokenChange(() => {
  renderOpButton();
  route();
});

hub.connect();
route();
