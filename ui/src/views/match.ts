// The match page: header with the live score, the radar from `/ws/matches/{id}`, metrics, events,
// the commentary feed (room-scoped on `/ws`) and, with an operator token, the operator controls.

import { api, ApiError, wsUrl } from '../api';
import { clear, field, fmtTime, h, showFieldErrors } from '../dom';
import { getHub } from '../hub';
import {
  allowedActions,
  applyToMatch,
  type ControlAction,
  applyToStream,
  displayFps,
  emptyStream,
  mergeCommentary,
  parseStreamMessage,
  recoveryPoint,
  resumeStream,
  phaseBadge,
  type StreamState,
} from '../messages';
import { drawRadar, sceneFromFrame } from '../radar';
import { ReconnectingSocket, type ConnectionState } from '../socket';
import { REPLAY_SPEEDS, advance, clock, parseReplayMessage, toggle, type ReplayState } from '../replay';
import { isOperator } from '../token';
import type { CommentaryDto, EventData, MatchDto } from '../types';
import { badge } from './badge';
import { inDesktop, replayHash, videoRefusal, videoUrl, withViewerToken } from '../video';

const hub = getHub();

const COMMENTARY_PAGE = 30;

export function matchView(root: HTMLElement, matchId: string, replaySession: string | null = null): () => void {
  let match: MatchDto | null = null;
  let feed: CommentaryDto[] = [];
  let feedCursor: string | null = null;
  const feedEls = new Map<number, HTMLElement>();
  let stream: StreamState = emptyStream();
  let radarDirty = true;
  let disposed = false;
  const ctlButtons = new Map<ControlAction, HTMLButtonElement>();
  let scoreInputs: [HTMLInputElement, HTMLInputElement] | null = null;
  let seqInput: HTMLInputElement | null = null;
  /** Keeps the operator's next sequence above every sequence seen (unless being edited). */
  const bumpSequence = () => {
    if (!seqInput || document.activeElement === seqInput) return;
    const next = feed.reduce((m, c) => Math.max(m, c.sequence), 0) + 1;
    if (Number(seqInput.value) < next) seqInput.value = String(next);
  };

  clear(root);
  const header = h('div', { class: 'match-head', hidden: true });
  const notice = h('p', { class: 'notice', role: 'alert', hidden: true });
  const streamBadge = badge('Live data');
  const sessionLine = h('p', { class: 'session', 'aria-live': 'polite' });
  const canvas = h('canvas', {
    class: 'radar',
    role: 'img',
    'aria-label': 'Radar: player and ball positions on the pitch',
    'data-testid': 'radar',
  });
  const radarNote = h('p', { class: 'radar-note muted' });
  const metricsBar = h('dl', { class: 'metrics', 'aria-label': 'Metrics' });
  const eventsList = h('ol', { class: 'events', 'aria-label': 'Match events' });
  const feedList = h('ol', {
    class: 'feed',
    'aria-label': 'Commentary, newest first',
    'aria-live': 'polite',
    'aria-relevant': 'additions',
  });
  const moreBtn = h('button', { type: 'button', hidden: true, onclick: () => void loadCommentary(true) }, 'Older commentary');
  const operatorPanel = h('section', { class: 'panel operator', 'aria-labelledby': 'op-h', hidden: true });
  let layout: HTMLElement;

  root.append(
    h('p', {}, h('a', { href: '#/' }, '← All matches')),
    notice,
    header,
    (layout = h(
      'div',
      { class: 'match-layout' },
      h(
        'section',
        { class: 'panel live', 'aria-labelledby': 'radar-h' },
        h('div', { class: 'panel-head' }, h('h2', { id: 'radar-h' }, 'Radar'), streamBadge.el),
        sessionLine,
        replaySession ? null : videoPanel(),
        h('div', { class: 'radar-wrap' }, canvas),
        h(
          'p',
          { class: 'legend muted', 'aria-hidden': 'true' },
          h('span', { class: 'lg lg-home' }), 'home ',
          h('span', { class: 'lg lg-away' }), 'away ',
          h('span', { class: 'lg lg-ball' }), 'ball ',
          h('span', { class: 'lg lg-pred' }), 'predicted ball ',
          h('span', { class: 'lg lg-keeper' }), 'goalkeeper',
        ),
        radarNote,
        metricsBar,
        h('h3', {}, 'Events'),
        eventsList,
      ),
      h(
        'section',
        { class: 'panel commentary', 'aria-labelledby': 'comm-h' },
        h('h2', { id: 'comm-h' }, 'Commentary'),
        feedList,
        moreBtn,
      ),
    )),
    operatorPanel,
  );

  // ------------------------------------------------------------------ video
  // The annotated video (boxes, ids, ball trail), shown on request: the server renders it only
  // while someone watches, and says why when it cannot (off on CPU-only machines, or the match
  // is analysed on another machine).
  let videoTimer = 0;
  function videoPanel(): HTMLElement {
    const img = h('img', { class: 'video', alt: 'Annotated match video', 'data-testid': 'video', hidden: true }) as HTMLImageElement;
    const note = h('p', { class: 'muted', role: 'status', 'data-testid': 'video-note' });
    const btn = h('button', { type: 'button', 'data-testid': 'video-toggle' }, 'Show video') as HTMLButtonElement;
    let on = false;
    const stop = () => {
      on = false;
      clearTimeout(videoTimer);
      img.removeAttribute('src');
      img.hidden = true;
      btn.textContent = 'Show video';
    };
    const play = async (): Promise<void> => {
      if (!on || disposed) return;
      const url = videoUrl(matchId);
      // ask first: an <img> that fails says nothing about why
      const ctl = new AbortController();
      let refused: { message: string; retry: boolean } | null;
      try {
        const r = await fetch(url, { signal: ctl.signal });
        refused = videoRefusal(r.status, r.ok ? null : await r.json().catch(() => null));
      } catch (e) {
        refused = { message: `no connection (${(e as Error).message})`, retry: true };
      }
      ctl.abort();
      if (!on || disposed) return;
      if (refused) {
        note.textContent = `No video: ${refused.message}`;
        img.hidden = true;
        // not running yet, or here on another machine: ask again; off on this server: stop asking
        if (refused.retry) videoTimer = window.setTimeout(() => void play(), 5000);
        else {
          on = false;
          btn.textContent = 'Show video';
        }
        return;
      }
      note.textContent = 'Live video, annotated by the server.';
      img.hidden = false;
      img.src = url;
    };
    // the stream ends when the match stops or pauses: ask again a little later
    img.addEventListener('error', () => {
      if (!on) return;
      note.textContent = 'The video stopped; trying again…';
      videoTimer = window.setTimeout(() => void play(), 3000);
    });
    btn.addEventListener('click', () => {
      if (on) stop();
      else {
        on = true;
        btn.textContent = 'Hide video';
        note.textContent = 'Connecting to the video…';
        void play();
      }
    });
    return h('div', { class: 'video-wrap' }, h('p', {}, btn), note, img);
  }

  // ------------------------------------------------------------------ header
  function renderHeader(): void {
    clear(header);
    header.hidden = !match;
    if (!match) return;
    const b = phaseBadge(match.phase);
    header.append(
      h(
        'div',
        { class: 'match-title' },
        h('span', { class: `badge ${b.cls}` }, b.label),
        h('span', { class: 'muted' }, [match.sport, match.competition, fmtTime(match.startTime)].filter(Boolean).join(' · ')),
      ),
      h(
        'h1',
        { class: 'scoreline' },
        h('span', { class: 'team home' }, match.homeTeam),
        h('span', { class: 'score', 'data-testid': 'score', 'aria-live': 'polite' }, `${match.homeScore} – ${match.awayScore}`),
        h('span', { class: 'team away' }, match.awayTeam),
      ),
      h(
        'p',
        { class: 'muted' },
        `Status: ${match.status}`,
        match.statusMessage ? ` — ${match.statusMessage}` : '',
        match.videoSource ? ` · video: ${match.videoSource.type} ${match.videoSource.value}` : '',
      ),
    );
    if (match.currentSessionId) header.append(exportLinks(matchId, match.currentSessionId));
    document.title = `${match.homeTeam} v ${match.awayTeam} · sportz`;
    const allowed = allowedActions(match);
    for (const [action, btn] of ctlButtons) btn.disabled = !allowed.has(action);
    if (scoreInputs) {
      const [hi, ai] = scoreInputs;
      if (document.activeElement !== hi && document.activeElement !== ai) {
        hi.value = String(match.homeScore);
        ai.value = String(match.awayScore);
      }
    }
  }

  // ------------------------------------------------------------------ commentary
  function commentaryEl(c: CommentaryDto, animate: boolean): HTMLElement {
    return h(
      'li',
      { class: `comment${animate ? ' enter' : ''}`, 'data-id': c.id },
      h(
        'div',
        { class: 'comment-meta' },
        c.minute !== null && c.minute !== undefined ? h('span', { class: 'minute' }, `${c.minute}′`) : null,
        h('span', { class: `etype etype-${c.eventType.toLowerCase()}` }, c.eventType),
        c.period ? h('span', { class: 'muted' }, c.period) : null,
        c.team ? h('span', { class: 'muted' }, c.team) : null,
      ),
      h('p', { class: 'comment-msg' }, c.actor ? h('strong', {}, `${c.actor}: `) : null, c.message),
      c.tags?.length ? h('p', { class: 'tags' }, c.tags.map((t) => h('span', { class: 'tag' }, t))) : null,
    );
  }

  function renderFeed(animateIds: number[]): void {
    const animate = new Set(animateIds);
    if (feed.length === 0) {
      feedList.replaceChildren(h('li', { class: 'empty muted' }, 'No commentary yet.'));
      return;
    }
    const els = feed.map((c) => {
      let el = feedEls.get(c.id);
      if (!el) {
        el = commentaryEl(c, animate.has(c.id));
        feedEls.set(c.id, el);
      }
      return el;
    });
    // Keyed update: nodes already in place are not touched, so a screen reader announces (and
    // the animation plays for) only what is new.
    const keep = new Set<Element>(els);
    for (const child of Array.from(feedList.children)) if (!keep.has(child)) child.remove();
    els.forEach((el, i) => {
      const at = feedList.children[i];
      if (at !== el) feedList.insertBefore(el, at ?? null);
    });
    moreBtn.hidden = !feedCursor;
  }

  async function loadCommentary(older = false): Promise<void> {
    try {
      const res = await api.listCommentary(matchId, COMMENTARY_PAGE, older ? feedCursor : null);
      const merged = mergeCommentary(feed, res.data);
      feed = merged.feed;
      if (older || feedCursor === null) feedCursor = res.nextCursor;
      renderFeed([]);
      bumpSequence();
    } catch (e) {
      showNotice(`Could not load commentary: ${(e as Error).message}`);
    }
  }

  // ------------------------------------------------------------------ radar, metrics, events
  function renderLive(): void {
    const s = stream;
    const st = s.status?.status ?? `no session${s.status?.match_status ? ` (match ${s.status.match_status})` : ''}`;
    sessionLine.textContent = `Session: ${st}${s.status?.message ? ` — ${s.status.message}` : ''}${
      s.sessionId ? ` (${s.sessionId})` : ''
    }${s.lastError ? ` · error: ${s.lastError}` : ''}`;
    const now = performance.now();
    const m = s.metrics;
    const items: Array<[string, string]> = [
      ['fps', `${displayFps(s, now).toFixed(1)} shown${m?.inference_fps !== undefined ? ` · ${m.inference_fps.toFixed(1)} inference` : ''}`],
      ['latency', m?.latency_ms !== undefined ? `${Math.round(m.latency_ms)} ms` : s.frame ? `${Math.round(s.frame.latency_ms)} ms` : '—'],
      ['device', m?.device ? `${m.device}${m.gpu?.name ? ` (${m.gpu.name})` : ''}` : '—'],
      ['frames', m?.frames_processed !== undefined ? `${m.frames_processed}${m.dropped_frames ? ` (${m.dropped_frames} dropped)` : ''}` : '—'],
    ];
    metricsBar.replaceChildren(...items.flatMap(([k, v]) => [h('dt', {}, k), h('dd', { 'data-metric': k }, v)]));
    if (!s.frame) {
      radarNote.textContent = 'No live frames. The radar moves while the match is being tracked.';
    } else if (s.frame.coordinate_mode === 'pixel') {
      radarNote.textContent = 'Uncalibrated: positions are drawn from the video picture, not pitch metres.';
    } else {
      radarNote.textContent = `${s.frame.players.length} players${s.frame.ball ? (s.frame.ball.predicted ? ' · ball predicted (dashed)' : ' · ball tracked') : ' · ball not seen'}`;
    }
  }

  let renderedEvents: EventData[] | null = null;
  function renderEvents(): void {
    if (renderedEvents === stream.events) return;
    renderedEvents = stream.events;
    if (stream.events.length === 0) {
      eventsList.replaceChildren(h('li', { class: 'muted' }, 'No events yet.'));
      return;
    }
    eventsList.replaceChildren(
      ...stream.events.slice(0, 50).map((e) =>
        h(
          'li',
          { class: `event event-${e.kind}` },
          h('span', { class: 'event-time' }, e.video_timestamp !== undefined ? fmtClock(e.video_timestamp) : ''),
          h('span', { class: 'event-kind' }, e.kind.replace(/_/g, ' ')),
          e.team ? h('span', { class: `team-dot team-${e.team}` }, e.team) : null,
          e.player_track_id !== null && e.player_track_id !== undefined ? h('span', { class: 'muted' }, `#${e.player_track_id}`) : null,
        ),
      ),
    );
  }

  let raf = 0;
  function frameLoop(): void {
    if (disposed) return;
    if (radarDirty) {
      radarDirty = false;
      const scene = stream.frame ? sceneFromFrame(stream.frame) : null;
      drawRadar(canvas, scene);
      // For tests and tools: the frame drawn and where its dots are (radar metres).
      canvas.dataset.frame = String(stream.frame?.frame_number ?? '');
      canvas.dataset.dots = String(scene?.players.length ?? 0);
      canvas.dataset.positions = scene
        ? [...scene.players.map((p) => `${p.x.toFixed(2)},${p.y.toFixed(2)}`), scene.ball ? `b${scene.ball.x.toFixed(2)},${scene.ball.y.toFixed(2)}` : ''].join(' ')
        : '';
    }
    raf = requestAnimationFrame(frameLoop);
  }
  const metricsTimer = setInterval(() => {
    renderLive();
    renderEvents();
  }, 500);
  const onResize = () => {
    radarDirty = true;
  };
  window.addEventListener('resize', onResize);
  // keyboard: Space starts, pauses or resumes the session (or the replay), S stops it
  const onKey = (e: KeyboardEvent) => {
    const target = e.target as HTMLElement | null;
    if (e.ctrlKey || e.metaKey || e.altKey || target?.closest('input, textarea, select, button, [contenteditable]')) return;
    const act = shortcutAction(e.key, replaySession !== null, match ? allowedActions(match) : new Set());
    if (!act) return;
    e.preventDefault();
    if (act === 'replay-toggle') playBtn.click();
    else ctlButtons.get(act)?.click();
  };
  document.addEventListener('keydown', onKey);

  // ------------------------------------------------------------------ replay
  let replay: ReplayState | null = null;
  const playBtn = h('button', { type: 'button', 'data-testid': 'replay-play' }, 'Pause');
  const seekBar = h('input', { type: 'range', min: '0', max: '0', step: '0.04', value: '0', 'aria-label': 'Replay position', 'data-testid': 'replay-seek' }) as HTMLInputElement;
  const timeLabel = h('span', { class: 'muted', 'data-testid': 'replay-time' }, '0:00 / 0:00');
  const speedSel = h(
    'select',
    { 'aria-label': 'Replay speed', 'data-testid': 'replay-speed' },
    ...REPLAY_SPEEDS.map((v) => h('option', { value: String(v), ...(v === 1 ? { selected: '' } : {}) }, `${v}×`)),
  ) as HTMLSelectElement;
  let seeking = false;
  function renderReplay(): void {
    if (!replay) return;
    playBtn.textContent = replay.state === 'playing' ? 'Pause' : replay.state === 'ended' ? 'Play again' : 'Play';
    seekBar.max = String(replay.duration);
    if (!seeking) seekBar.value = String(replay.at);
    timeLabel.textContent = `${clock(replay.at)} / ${clock(replay.duration)} · ${replay.state}`;
    if (document.activeElement !== speedSel) speedSel.value = String(replay.speed);
  }
  if (replaySession) {
    playBtn.addEventListener('click', () => {
      for (const c of toggle(replay)) live.send(c);
    });
    seekBar.addEventListener('input', () => (seeking = true));
    seekBar.addEventListener('change', () => {
      seeking = false;
      live.send({ type: 'seek', t: Number(seekBar.value) });
      stream = { ...emptyStream(), events: [] };
      radarDirty = true;
    });
    speedSel.addEventListener('change', () => live.send({ type: 'speed', value: Number(speedSel.value) }));
    layout.before(
      h(
        'section',
        { class: 'panel replay', 'aria-label': 'Replay', 'data-testid': 'replay' },
        h('p', {}, h('strong', {}, 'Replay'), ` of session ${replaySession} — `, h('a', { href: `#/match/${encodeURIComponent(matchId)}` }, 'back to live')),
        h('p', { class: 'replay-controls' }, playBtn, ' ', seekBar, ' ', timeLabel, ' ', speedSel),
      ),
    );
  }

  const live = new ReconnectingSocket({
    url: () => {
      // after a blip, ask for every event stored since the newest one on the page
      if (replaySession) {
        // a reconnect resumes the replay where it was
        const at = replay ? String(replay.at) : '0';
        return wsUrl(`/ws/matches/${matchId}`, { replay: replaySession, at, speed: String(replay?.speed ?? 1) });
      }
      const since = recoveryPoint(stream);
      return wsUrl(`/ws/matches/${matchId}`, since ? { since } : {});
    },
    onOpen: (reconnected) => {
      // The server sends a snapshot on every connect: start from it, keeping the events a
      // reconnect's snapshot continues.
      stream = reconnected ? resumeStream(stream) : emptyStream();
      radarDirty = true;
    },
    onMessage: (text) => {
      const player = replaySession ? parseReplayMessage(text) : null;
      if (player) {
        replay = player;
        renderReplay();
        // the desktop overlay follows this very player (its id in the route); LAN browsers keep their URL
        const hash = replaySession && inDesktop() ? replayHash(matchId, replaySession, player.player) : null;
        if (hash && location.hash !== hash) history.replaceState(null, '', hash);
        return;
      }
      const msg = parseStreamMessage(text);
      if (!msg) return;
      if (replay && msg.type === 'frame') {
        replay = advance(replay, msg.data.video_timestamp);
        renderReplay();
      }
      stream = applyToStream(stream, msg, performance.now());
      if (msg.type === 'frame' || msg.type === 'ball' || msg.type === 'players') radarDirty = true;
    },
    onState: (state: ConnectionState, detail) => {
      streamBadge.set(state, detail);
      if (state === 'disconnected' && detail.closeCode === 4404) showNotice('This match does not exist (any more).');
    },
  });

  // ------------------------------------------------------------------ operator
  function renderOperator(): void {
    clear(operatorPanel);
    if (!isOperator() || !match) {
      operatorPanel.hidden = true;
      return;
    }
    operatorPanel.hidden = false;
    const m = match;
    const ctlMsg = h('p', { class: 'form-msg', role: 'status' });
    ctlButtons.clear();
    const ctl = (action: ControlAction, label: string) => {
      const btn = h(
        'button',
        {
          type: 'button',
          'data-action': action,
          onclick: async () => {
            ctlMsg.textContent = `${label}…`;
            try {
              match = await api.control(matchId, action);
              ctlMsg.textContent = `${label}: ${match.status}`;
              renderHeader();
            } catch (e) {
              ctlMsg.textContent = errText(e);
            }
          },
        },
        label,
      );
      ctlButtons.set(action, btn);
      return btn;
    };

    // score
    const home = h('input', { type: 'number', name: 'homeScore', min: '0', value: String(m.homeScore), required: true, inputMode: 'numeric' });
    const away = h('input', { type: 'number', name: 'awayScore', min: '0', value: String(m.awayScore), required: true, inputMode: 'numeric' });
    scoreInputs = [home, away];
    const scoreMsg = h('p', { class: 'form-msg', role: 'status' });
    const scoreForm = h(
      'form',
      { class: 'inline-form', 'aria-labelledby': 'score-h', novalidate: true },
      h('h3', { id: 'score-h' }, 'Score'),
      h('div', { class: 'row' }, field(m.homeTeam, home), field(m.awayTeam, away)),
      h('button', { type: 'submit' }, 'Update score'),
      scoreMsg,
    );
    scoreForm.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      showFieldErrors(scoreForm, {});
      try {
        match = await api.updateScore(matchId, Number(home.value), Number(away.value));
        scoreMsg.textContent = 'Score updated';
        renderHeader();
      } catch (e) {
        scoreMsg.textContent = errText(e);
        if (e instanceof ApiError) showFieldErrors(scoreForm, e.fields);
      }
    });

    // commentary
    const nextSeq = feed.reduce((m, c) => Math.max(m, c.sequence), 0) + 1;
    const seq = h('input', { type: 'number', name: 'sequence', min: '1', value: String(nextSeq), required: true });
    seqInput = seq;
    const minute = h('input', { type: 'number', name: 'minute', min: '0' });
    const etype = h('input', { type: 'text', name: 'eventType', required: true, value: 'comment', list: 'etypes' });
    const period = h('input', { type: 'text', name: 'period', placeholder: '1st half' });
    const actor = h('input', { type: 'text', name: 'actor' });
    const team = h('input', { type: 'text', name: 'team' });
    const message = h('textarea', { name: 'message', required: true, rows: 2 });
    const tags = h('input', { type: 'text', name: 'tags', placeholder: 'goal, highlight' });
    const cMsg = h('p', { class: 'form-msg', role: 'status' });
    const cForm = h(
      'form',
      { class: 'inline-form', 'aria-labelledby': 'post-h', novalidate: true },
      h('h3', { id: 'post-h' }, 'Post commentary'),
      h(
        'datalist',
        { id: 'etypes' },
        ['comment', 'goal', 'shot', 'foul', 'card', 'substitution', 'kickoff', 'half_time', 'full_time'].map((v) => h('option', { value: v })),
      ),
      field('Message', message),
      h('div', { class: 'row' }, field('Event type', etype), field('Sequence', seq, '> 0, order within the match'), field('Minute', minute)),
      h('div', { class: 'row' }, field('Period', period), field('Actor', actor), field('Team', team), field('Tags', tags, 'comma separated')),
      h('button', { type: 'submit' }, 'Post'),
      cMsg,
    );
    cForm.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      showFieldErrors(cForm, {});
      const opt = (v: string) => (v.trim() ? v.trim() : undefined);
      try {
        const row = await api.postCommentary(matchId, {
          sequence: Number(seq.value),
          eventType: etype.value.trim(),
          message: message.value.trim(),
          minute: minute.value ? Number(minute.value) : undefined,
          period: opt(period.value),
          actor: opt(actor.value),
          team: opt(team.value),
          tags: tags.value.split(',').map((t) => t.trim()).filter(Boolean),
        });
        const merged = mergeCommentary(feed, [row]);
        feed = merged.feed;
        renderFeed(merged.added);
        cMsg.textContent = 'Posted';
        message.value = '';
        seq.value = String(row.sequence + 1);
        message.focus();
      } catch (e) {
        cMsg.textContent = errText(e);
        if (e instanceof ApiError) showFieldErrors(cForm, e.fields);
      }
    });

    operatorPanel.append(
      h('h2', { id: 'op-h' }, 'Operator'),
      h(
        'div',
        { class: 'controls', role: 'group', 'aria-label': 'Tracking session' },
        ctl('start', 'Start'),
        ctl('pause', 'Pause'),
        ctl('stop', 'Stop'),
        ctl('restart', 'Restart'),
        h('a', { class: 'button', href: `#/match/${matchId}/edit` }, 'Edit match'),
        h('a', { class: 'button', href: `#/match/${matchId}/calibrate` }, 'Calibrate'),
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            onclick: async () => {
              if (!confirm(`Delete ${m.homeTeam} v ${m.awayTeam}?`)) return;
              try {
                await api.deleteMatch(matchId);
                location.hash = '#/';
              } catch (e) {
                ctlMsg.textContent = errText(e);
              }
            },
          },
          'Delete',
        ),
      ),
      ctlMsg,
      h('div', { class: 'op-forms' }, scoreForm, cForm),
    );
  }

  function showNotice(text: string): void {
    notice.textContent = text;
    notice.hidden = false;
  }

  // ------------------------------------------------------------------ wiring
  const offMsg = hub.on((msg) => {
    if (msg.type === 'commentary' && msg.data.matchId === matchId) {
      const merged = mergeCommentary(feed, [msg.data]);
      feed = merged.feed;
      renderFeed(merged.added);
      bumpSequence();
      return;
    }
    if (match) {
      const next = applyToMatch(match, msg);
      if (next !== match) {
        match = next;
        renderHeader();
      }
    }
  });
  const offResync = hub.onReconnect(() => {
    void loadMatch();
    void loadCommentary();
  });

  async function loadMatch(): Promise<void> {
    try {
      match = await api.getMatch(matchId);
      notice.hidden = true;
      renderOperator();
      renderHeader();
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        showNotice('This match does not exist (any more).');
        layout.hidden = true; // the stream gets 4404 and stops by itself
      } else {
        showNotice(`Could not load the match: ${errText(e)}`);
      }
    }
  }

  hub.subscribe(matchId);
  void loadMatch();
  void loadCommentary();
  renderFeed([]);
  renderLive();
  renderEvents();
  live.connect();
  raf = requestAnimationFrame(frameLoop);

  return () => {
    disposed = true;
    clearTimeout(videoTimer);
    cancelAnimationFrame(raf);
    clearInterval(metricsTimer);
    document.removeEventListener('keydown', onKey);
    window.removeEventListener('resize', onResize);
    hub.unsubscribe(matchId);
    offMsg();
    offResync();
    live.close();
  };
}

export function errText(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 401) return 'The operator token was refused (401): set it again in Operator.';
    if (e.status === 429) return `Too many requests: try again in ${e.retryAfterSecs ?? 'a few'} s.`;
    return `${e.message}${e.status ? ` (${e.status})` : ''}`;
  }
  return String(e);
}

function fmtClock(secs: number): string {
  const m = Math.floor(secs / 60);
  const s = Math.floor(secs % 60);
  return `${m}:${String(s).padStart(2, '0')}`;
}

/** The export formats of a recorded session (`GET /matches/{id}/sessions/{sid}/export`). */
export const EXPORT_FORMATS: ReadonlyArray<[format: string, label: string]> = [
  ['cdf', 'CDF tracking'],
  ['events-csv', 'events CSV'],
  ['gsr', 'SoccerNet GSR'],
  ['mot', 'MOTChallenge'],
  ['jsonl', 'all messages (JSONL)'],
];

/** Download links for a session's recording, one per format. */
export function exportLinks(matchId: string, sessionId: string): HTMLElement {
  const base = `/matches/${encodeURIComponent(matchId)}/sessions/${encodeURIComponent(sessionId)}/export`;
  const links: Array<HTMLElement | string> = [];
  EXPORT_FORMATS.forEach(([format, label], i) => {
    if (i > 0) links.push(' · ');
    links.push(h('a', { href: withViewerToken(base, { format }), download: '', 'data-format': format }, label));
  });
  links.push(' · ', h('a', { href: `#/match/${encodeURIComponent(matchId)}/replay/${encodeURIComponent(sessionId)}`, 'data-testid': 'replay-link' }, 'replay'));
  return h('p', { class: 'export muted', 'data-testid': 'export' }, 'Export this session (recorded as it runs): ', ...links);
}

/**
 * The match page's keyboard shortcut for a key: Space starts, pauses or resumes (or toggles a
 * replay), `s` stops; only what the match allows (and what an operator's buttons do).
 */
export function shortcutAction(
  key: string,
  replaying: boolean,
  allowed: Set<ControlAction>,
): ControlAction | 'replay-toggle' | null {
  if (key === ' ' || key === 'Spacebar') {
    if (replaying) return 'replay-toggle';
    if (allowed.has('pause')) return 'pause';
    if (allowed.has('start')) return 'start';
    return null;
  }
  if ((key === 's' || key === 'S') && !replaying && allowed.has('stop')) return 'stop';
  return null;
}
