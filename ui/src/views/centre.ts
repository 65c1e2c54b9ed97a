// The match centre: a grid of match cards, live through `/ws`, paginated by cursor.

import { api, ApiError } from '../api';
import { clear, fmtTime, h } from '../dom';
import { getHub } from '../hub';
import { applyToCentre, emptyCentre, phaseBadge, type CentreState } from '../messages';
import { isOperator } from '../token';
import type { MatchDto } from '../types';
import { OPEN_VIDEO_PATH, inDesktop } from '../video';

const hub = getHub();

export const PAGE_SIZE = 12;

export function matchCard(m: MatchDto, flash: boolean): HTMLElement {
  const badge = phaseBadge(m.phase);
  const title = `${m.homeTeam} v ${m.awayTeam}`;
  return h(
    'li',
    { class: `card${flash ? ' flash' : ''}`, 'data-match-id': m.id },
    h(
      'a',
      { href: `#/match/${m.id}`, class: 'card-link', 'aria-label': `${title}, ${badge.label}, ${m.homeScore} to ${m.awayScore}` },
      h(
        'div',
        { class: 'card-top' },
        h('span', { class: `badge ${badge.cls}` }, badge.label),
        h('span', { class: 'card-sport' }, [m.sport, m.competition].filter(Boolean).join(' · ')),
      ),
      h(
        'div',
        { class: 'card-teams' },
        h('span', { class: 'team home' }, m.homeTeam),
        h('span', { class: 'score', 'data-testid': 'score' }, `${m.homeScore} – ${m.awayScore}`),
        h('span', { class: 'team away' }, m.awayTeam),
      ),
      h(
        'div',
        { class: 'card-meta' },
        m.name && m.name !== title ? h('span', {}, m.name) : null,
        m.startTime ? h('span', {}, fmtTime(m.startTime)) : null,
        h('span', { class: `status status-${m.status}` }, m.status),
      ),
    ),
  );
}

export function centreView(root: HTMLElement): () => void {
  let state: CentreState = emptyCentre();
  // Cursors of the pages seen, so "Previous" works: cursors[i] fetches page i.
  const cursors: (string | null)[] = [null];
  let page = 0;
  let nextCursor: string | null = null;
  let loading = true;
  let error: string | null = null;

  const grid = h('ul', { class: 'grid', 'aria-label': 'Matches' });
  const status = h('p', { class: 'muted', role: 'status' });
  const prev = h('button', { type: 'button', onclick: () => go(page - 1) }, '← Previous');
  const next = h('button', { type: 'button', onclick: () => go(page + 1) }, 'Next →');
  const pageLabel = h('span', { class: 'muted' });
  const workersLine = h('p', { class: 'muted workers', 'aria-live': 'off' });
  const heading = h(
    'div',
    { class: 'page-head' },
    h('h1', {}, 'Match centre'),
    h(
      'div',
      { class: 'row' },
      // the desktop app only: its native file dialog (also Ctrl+O, or drop a file on the window)
      isOperator() && inDesktop()
        ? h('a', { href: OPEN_VIDEO_PATH, class: 'button', 'data-testid': 'open-video', title: 'Ctrl+O, or drop a video file on the window' }, 'Open a video…')
        : null,
      isOperator() ? h('a', { href: '#/new', class: 'button primary' }, 'New match') : null,
    ),
  );
  clear(root);
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' }, prev, pageLabel, next);
  root.append(heading, status, grid, pager, workersLine);

  async function loadWorkers(): Promise<void> {
    try {
      const ws = await api.workers();
      workersLine.textContent = ws.length
        ? `Workers: ${ws
            .map((w) => {
              const active = Array.isArray(w.active_matches) ? w.active_matches.length : 0;
              return `${String(w.worker_id)} on ${String(w.device)} (${active}/${String(w.capacity)} matches)`;
            })
            .join(', ')}`
        : 'No tracking worker is running: matches can be created, but not tracked.';
    } catch {
      workersLine.textContent = '';
    }
  }

  function render(): void {
    clear(grid);
    status.textContent = loading ? 'Loading matches…' : (error ?? '');
    if (!loading && !error && state.matches.length === 0) {
      grid.append(
        h(
          'li',
          { class: 'empty' },
          h('p', {}, 'No matches yet.'),
          isOperator()
            ? h('a', { href: '#/new', class: 'button primary' }, 'Create the first match')
            : h('p', { class: 'muted' }, 'An operator creates matches; they appear here live.'),
        ),
      );
    }
    for (const m of state.matches) grid.append(matchCard(m, state.flashed.has(m.id)));
    state = { ...state, flashed: new Set() };
    prev.disabled = page === 0;
    next.disabled = !nextCursor;
    pager.hidden = page === 0 && !nextCursor;
    pageLabel.textContent = `Page ${page + 1}`;
  }

  // Loads overlap (a burst of match_created each reloads page 1 while the user pages on): only
  // the newest answers, and each is for the page it was asked for. Without this a late page-1
  // answer replaced page 2's cards under a "Page 2" label and corrupted its cursor.
  let generation = 0;

  async function load(silent = false): Promise<void> {
    const mine = ++generation;
    const forPage = page;
    loading = !silent;
    if (!silent) render();
    try {
      const res = await api.listMatches(PAGE_SIZE, cursors[forPage]);
      if (mine !== generation) return;
      state = { matches: res.data, flashed: silent ? state.flashed : new Set() };
      nextCursor = res.nextCursor;
      cursors[forPage + 1] = res.nextCursor;
      error = null;
    } catch (e) {
      if (mine !== generation) return;
      error = e instanceof ApiError ? `Could not load matches: ${e.message}` : String(e);
    }
    loading = false;
    render();
  }

  function go(p: number): void {
    if (p < 0 || (p > page && !nextCursor)) return;
    page = p;
    void load();
  }

  const offMsg = hub.on((msg) => {
    const after = applyToCentre(state, msg, page === 0);
    if (after !== state) {
      state = after;
      if (state.matches.length > PAGE_SIZE) {
        // A new match pushed one off this page: show a full page and fetch the cursor anew.
        state = { ...state, matches: state.matches.slice(0, PAGE_SIZE) };
        void load(true);
      }
      render();
    }
  });
  const offResync = hub.onReconnect(() => {
    void load();
    void loadWorkers();
  });
  void load();
  void loadWorkers();
  return () => {
    offMsg();
    offResync();
  };
}
