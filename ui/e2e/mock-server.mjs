// A stand-in for `sportz --headless`, for working on the UI without the Rust build: the REST and
// WebSocket contract of issue 10 in memory, plus a moving synthetic radar. Not used by `npm test`;
// `npm run test:e2e -- --mock` runs the end-to-end scenarios against it.
//   node e2e/mock-server.mjs --bind 127.0.0.1:8080   (env SPORTZ_OPERATOR_TOKEN)

import { createServer } from 'node:http';
import { readFileSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { join, extname, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
const bindArg = process.argv.indexOf('--bind');
const [host, port] = (bindArg > 0 ? process.argv[bindArg + 1] : '127.0.0.1:8080').split(':');
const TOKEN = process.env.SPORTZ_OPERATOR_TOKEN ?? 'operator-token';
const REQUIRE_VIEWER = ['true', '1', 'yes', 'on'].includes(process.env.SPORTZ_REQUIRE_VIEWER_TOKEN ?? '');

const matches = new Map();
const commentary = new Map();
const calibrations = new Map();
let seq = 0;
let commentId = 0;
// --state FILE keeps matches, commentary and calibrations across a restart (like the real data dir).
const stateArg = process.argv.indexOf('--state');
const stateFile = stateArg > 0 ? process.argv[stateArg + 1] : null;
if (stateFile && existsSync(stateFile)) {
  const saved = JSON.parse(readFileSync(stateFile, 'utf8'));
  for (const m of saved.matches) matches.set(m.id, { ...m, status: ['processing', 'starting'].includes(m.status) ? 'completed' : m.status, _seq: 0, _events: [] });
  for (const [k, v] of saved.commentary) commentary.set(k, v);
  for (const [k, v] of saved.calibrations) calibrations.set(k, v);
  commentId = saved.commentId;
}
function saveState() {
  if (!stateFile) return;
  writeFileSync(stateFile, JSON.stringify({
    matches: [...matches.values()].map(strip), commentary: [...commentary], calibrations: [...calibrations], commentId,
  }));
}
const ulid = () => (Date.now().toString(36) + (seq++).toString(36).padStart(4, '0') + Math.random().toString(36).slice(2, 8)).toUpperCase().padEnd(26, '0').slice(0, 26);
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

const send = (res, status, body, headers = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
};
const err = (res, status, code, message, fields) => send(res, status, { error: { code, message, ...(fields ? { fields } : {}) } });
const readBody = (req) => new Promise((resolve) => {
  let s = '';
  req.on('data', (c) => (s += c));
  req.on('end', () => { try { resolve(s ? JSON.parse(s) : {}); } catch { resolve(null); } });
});

function validateMatch(b, partial) {
  const fields = {};
  for (const k of ['homeTeam', 'awayTeam']) {
    if (!partial && (typeof b[k] !== 'string' || !b[k].trim())) fields[k] = `${k} is required`;
    if (partial && k in b && (typeof b[k] !== 'string' || !b[k].trim())) fields[k] = `${k} must not be empty`;
  }
  for (const k of ['startTime', 'endTime']) if (b[k] && Number.isNaN(Date.parse(b[k]))) fields[k] = 'expected an RFC 3339 time';
  if (b.startTime && b.endTime && Date.parse(b.endTime) < Date.parse(b.startTime)) fields.endTime = 'end is before the start';
  return fields;
}
function phase(m) {
  if (['processing', 'paused', 'starting'].includes(m.status)) return 'live';
  if (m.status === 'completed') return 'finished';
  const t = Date.now();
  if (m.endTime && t >= Date.parse(m.endTime)) return 'finished';
  if (m.startTime && t >= Date.parse(m.startTime)) return 'live';
  return 'scheduled';
}
const dto = (m) => ({ ...m, phase: phase(m) });

// ---------------------------------------------------------------- /ws hub
const hubClients = new Set();
function broadcast(msg, room) {
  const text = JSON.stringify(msg);
  for (const c of hubClients) if (!room || c.rooms.has(room)) c.ws.send(text);
}
// ---------------------------------------------------------------- per-match streams
const streams = new Map(); // id -> Set<ws>
const sims = new Map();
function envelope(m, type, data) {
  return { type, match_id: m.id, session_id: m.currentSessionId, ts: Date.now() / 1000, seq: ++m._seq, data };
}
function publish(m, type, data) {
  const text = JSON.stringify(envelope(m, type, data));
  for (const ws of streams.get(m.id) ?? []) ws.send(text);
}
function startSim(m) {
  stopSim(m);
  let f = 0;
  const trail = [];
  const frame = () => {
    f++;
    const t = f / 10;
    const players = [];
    for (let i = 0; i < 22; i++) {
      const team = i < 11 ? 'home' : 'away';
      const bx = (i % 11) * 9 + 5, by = Math.floor(i / 11) * 30 + 10 + (i % 3) * 8;
      const x = Math.min(104, Math.max(1, bx + 4 * Math.sin(t / 2 + i)));
      const y = Math.min(67, Math.max(1, by + 4 * Math.cos(t / 3 + i)));
      players.push({ track_id: i + 1, class: i % 11 === 0 ? 'goalkeeper' : 'player', bbox: [0, 0, 10, 20], confidence: 0.9, pitch: { x, y }, team });
    }
    const ball = { x: 52.5 + 30 * Math.sin(t / 4), y: 34 + 20 * Math.sin(t / 3) };
    trail.push({ t, x: ball.x * 12, y: ball.y * 10, pitch: ball });
    while (trail.length > 20) trail.shift();
    const data = {
      frame_number: f, video_timestamp: t, timestamp: Date.now() / 1000, width: 1280, height: 720, coordinate_mode: 'pitch',
      ball: { track_id: 1, bbox: [0, 0, 1, 1], pixel: { x: ball.x * 12, y: ball.y * 10 }, pitch: ball, confidence: 0.9, velocity: { x: 1, y: 0 }, speed: 1, predicted: f % 30 > 25 },
      trail: [...trail], players, latency_ms: 80 + 20 * Math.random(),
    };
    m._last = data;
    publish(m, 'frame', data);
    if (f % 10 === 0) {
      m._metrics = { source_fps: 10, inference_fps: 9.8, detect_ms: 20, detect_ms_p95: 30, latency_ms: 90, frames_processed: f, dropped_frames: 0, events_emitted: m.eventCount, device: 'cpu', gpu: null };
      publish(m, 'metrics', m._metrics);
    }
    if (f % 50 === 0) {
      m.eventCount++;
      const ev = { event_id: `evt_${ulid()}`, kind: ['pass', 'possession_change', 'shot'][f % 3], video_timestamp: t, timestamp: Date.now() / 1000, frame_number: f, pitch: ball, team: f % 100 ? 'home' : 'away', player_track_id: 3, confidence: 0.8, details: {} };
      m._events.push(ev);
      publish(m, 'event', ev);
    }
  };
  sims.set(m.id, setInterval(frame, 100));
}
function stopSim(m) {
  clearInterval(sims.get(m.id));
  sims.delete(m.id);
}
function setStatus(m, status, message = null) {
  m.status = status;
  m.statusMessage = message;
  m.updatedAt = now();
  publish(m, 'status', { status, message, worker_id: 'mock' });
  broadcast({ type: 'match_updated', data: dto(m) });
}

// ---------------------------------------------------------------- REST
async function handle(req, res) {
  const url = new URL(req.url, 'http://x');
  const p = url.pathname.split('/').filter(Boolean);
  const method = req.method;
  const mutating = method !== 'GET' && method !== 'HEAD';
  if (url.pathname === '/health') return send(res, 200, { status: 'ok' });
  if (url.pathname === '/api/workers') return send(res, 200, { data: [{ worker_id: 'mock', device: 'cpu', gpu: null, models: [], active_matches: [...sims.keys()], capacity: 2, started_at: 0, ts: Date.now() / 1000 }] });
  if (p[0] === 'matches') {
    if (mutating && req.headers.authorization !== `Bearer ${TOKEN}`) return err(res, 401, 'unauthorized', 'missing or wrong operator token');
    if (REQUIRE_VIEWER && req.headers.authorization !== `Bearer ${TOKEN}`) return err(res, 401, 'unauthorized', 'this server requires a viewer token');
    const body = mutating ? await readBody(req) : null;
    if (mutating && body === null) return err(res, 400, 'bad_json', 'the body is not JSON');
    if (p.length === 1 && method === 'GET') {
      const all = [...matches.values()].reverse();
      const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 20));
      const start = Number(url.searchParams.get('cursor') ?? 0);
      const page = all.slice(start, start + limit).map(dto);
      return send(res, 200, { data: page, nextCursor: start + limit < all.length ? String(start + limit) : null });
    }
    if (p.length === 1 && method === 'POST') {
      const fields = validateMatch(body, false);
      if (Object.keys(fields).length) return err(res, 400, 'validation', 'invalid match', fields);
      const id = `match_${ulid()}`;
      const m = {
        id, name: body.name || `${body.homeTeam} v ${body.awayTeam}`, sport: body.sport || 'football', homeTeam: body.homeTeam, awayTeam: body.awayTeam,
        competition: body.competition ?? null, startTime: body.startTime ?? null, endTime: body.endTime ?? null, homeScore: 0, awayScore: 0,
        status: body.videoSource ? 'ready' : 'draft', statusMessage: null, videoSource: body.videoSource ?? null, currentSessionId: null, eventCount: 0,
        createdAt: now(), updatedAt: now(), _seq: 0, _events: [],
      };
      matches.set(id, m);
      commentary.set(id, []);
      const out = dto(m);
      broadcast({ type: 'match_created', data: out });
      return send(res, 201, { data: strip(out) });
    }
    const m = matches.get(p[1]);
    if (!m) return err(res, 404, 'not_found', `no match ${p[1]}`);
    if (p.length === 2) {
      if (method === 'GET') return send(res, 200, { data: strip(dto(m)) });
      if (method === 'PATCH') {
        const fields = validateMatch(body, true);
        if (Object.keys(fields).length) return err(res, 400, 'validation', 'invalid match', fields);
        for (const k of ['name', 'sport', 'homeTeam', 'awayTeam', 'competition', 'startTime', 'endTime', 'videoSource']) if (k in body) m[k] = body[k];
        m.updatedAt = now();
        broadcast({ type: 'match_updated', data: strip(dto(m)) });
        return send(res, 200, { data: strip(dto(m)) });
      }
      if (method === 'DELETE') {
        if (sims.has(m.id)) return err(res, 409, 'conflict', 'stop the match before deleting it');
        matches.delete(m.id);
        return send(res, 204);
      }
    }
    if (p[2] === 'score' && method === 'PATCH') {
      const fields = {};
      for (const k of ['homeScore', 'awayScore']) if (!Number.isInteger(body[k]) || body[k] < 0) fields[k] = 'expected a whole number ≥ 0';
      if (Object.keys(fields).length) return err(res, 400, 'validation', 'invalid score', fields);
      m.homeScore = body.homeScore;
      m.awayScore = body.awayScore;
      broadcast({ type: 'score_update', data: { matchId: m.id, homeScore: m.homeScore, awayScore: m.awayScore } });
      return send(res, 200, { data: strip(dto(m)) });
    }
    if (p[2] === 'commentary') {
      const list = commentary.get(m.id);
      if (method === 'GET') {
        const sorted = [...list].sort((a, b) => b.sequence - a.sequence || b.id - a.id);
        const limit = Number(url.searchParams.get('limit') ?? 20);
        const start = Number(url.searchParams.get('cursor') ?? 0);
        return send(res, 200, { data: sorted.slice(start, start + limit), nextCursor: start + limit < sorted.length ? String(start + limit) : null });
      }
      const fields = {};
      if (!Number.isInteger(body.sequence) || body.sequence <= 0) fields.sequence = 'expected a whole number > 0';
      if (!body.eventType) fields.eventType = 'eventType is required';
      if (!body.message) fields.message = 'message is required';
      if (Object.keys(fields).length) return err(res, 400, 'validation', 'invalid commentary', fields);
      const row = { id: ++commentId, matchId: m.id, minute: body.minute ?? null, sequence: body.sequence, period: body.period ?? null, eventType: body.eventType, actor: body.actor ?? null, team: body.team ?? null, message: body.message, metadata: body.metadata ?? null, tags: body.tags ?? [], createdAt: now() };
      list.push(row);
      broadcast({ type: 'commentary', data: row }, m.id);
      return send(res, 201, { data: row });
    }
    if (['start', 'pause', 'stop', 'restart'].includes(p[2]) && method === 'POST') {
      const a = p[2];
      if (a === 'start' && !['ready', 'completed', 'failed', 'paused'].includes(m.status)) return err(res, 409, 'illegal_transition', `cannot start a match that is ${m.status}`);
      if (a === 'pause' && m.status !== 'processing') return err(res, 409, 'illegal_transition', `cannot pause a match that is ${m.status}`);
      if (a === 'stop' && !['processing', 'paused'].includes(m.status)) return err(res, 409, 'illegal_transition', `cannot stop a match that is ${m.status}`);
      if (a === 'start' || a === 'restart') {
        if (a === 'restart' || !m.currentSessionId) m.currentSessionId = `ses_${ulid()}`;
        setStatus(m, 'processing', 'synthetic demo');
        startSim(m);
      } else if (a === 'pause') { stopSim(m); setStatus(m, 'paused'); } else { stopSim(m); setStatus(m, 'completed'); }
      return send(res, 200, { data: strip(dto(m)) });
    }
    if (p[2] === 'calibration') {
      if (method === 'GET') return send(res, 200, { data: calibrations.get(m.id) ?? { pairs: [], reprojectionErrorPx: null } });
      if (!Array.isArray(body.pairs) || body.pairs.length < 4) return err(res, 400, 'validation', 'at least 4 pairs are needed', { pairs: `got ${body.pairs?.length ?? 0} pairs, need at least 4` });
      const c = { pairs: body.pairs, reprojectionErrorPx: 1.7 };
      calibrations.set(m.id, c);
      return send(res, 200, { data: c });
    }
    if (p[2] === 'still') {
      if (!m.videoSource) return err(res, 409, 'conflict', 'the match has no video source');
      if (m.videoSource.type === 'synthetic' || m.videoSource.type === 'device') return err(res, 409, 'conflict', `no still image for a ${m.videoSource.type} source`);
      res.writeHead(200, { 'Content-Type': 'image/svg+xml' });
      return res.end(`<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="720"><rect width="1280" height="720" fill="#2e7d32"/><polygon points="200,150 1080,150 1260,700 20,700" fill="none" stroke="white" stroke-width="4"/><line x1="640" y1="150" x2="640" y2="700" stroke="white" stroke-width="4"/><ellipse cx="640" cy="380" rx="150" ry="70" fill="none" stroke="white" stroke-width="4"/></svg>`);
    }
    if (p[2] === 'events' || p[2] === 'sessions') return send(res, 200, { data: [], nextCursor: null });
    return err(res, 404, 'not_found', 'no such route');
  }
  // static
  let file = join(dist, url.pathname === '/' ? 'index.html' : url.pathname);
  if (!file.startsWith(dist) || !existsSync(file) || statSync(file).isDirectory()) file = join(dist, 'index.html');
  if (!existsSync(file)) return err(res, 404, 'not_found', 'run npm run build first');
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json', '.svg': 'image/svg+xml' };
  res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' });
  res.end(readFileSync(file));
}
const strip = (m) => Object.fromEntries(Object.entries(m).filter(([k]) => !k.startsWith('_')));

const server = createServer((req, res) => handle(req, res).catch((e) => err(res, 500, 'internal', String(e))));
const wss = new WebSocketServer({ noServer: true });
server.on('upgrade', (req, socket, head) => {
  const url = new URL(req.url, 'http://x');
  const p = url.pathname.split('/').filter(Boolean);
  wss.handleUpgrade(req, socket, head, (ws) => {
    if (REQUIRE_VIEWER && url.searchParams.get('token') !== TOKEN) return ws.close(4401, 'a viewer token is required');
    if (p.length === 1 && p[0] === 'ws') {
      const c = { ws, rooms: new Set() };
      hubClients.add(c);
      ws.send(JSON.stringify({ type: 'welcome' }));
      ws.on('message', (raw) => {
        let msg;
        try { msg = JSON.parse(String(raw)); } catch { return ws.send(JSON.stringify({ type: 'error', message: 'not JSON' })); }
        if ((msg.type === 'subscribe' || msg.type === 'unsubscribe') && typeof msg.matchId === 'string') {
          if (msg.type === 'subscribe') c.rooms.add(msg.matchId); else c.rooms.delete(msg.matchId);
          ws.send(JSON.stringify({ type: `${msg.type}d`, matchId: msg.matchId }));
        } else ws.send(JSON.stringify({ type: 'error', message: 'unknown message type' }));
      });
      ws.on('close', () => hubClients.delete(c));
    } else if (p[0] === 'ws' && p[1] === 'matches' && p[2]) {
      const m = matches.get(p[2]);
      if (!m) return ws.close(4404, 'unknown match');
      if (!streams.has(m.id)) streams.set(m.id, new Set());
      streams.get(m.id).add(ws);
      ws.send(JSON.stringify(envelope(m, 'status', { status: m.status, message: m.statusMessage, worker_id: null })));
      if (sims.has(m.id) && m._last) ws.send(JSON.stringify(envelope(m, 'frame', m._last)));
      if (m._metrics) ws.send(JSON.stringify(envelope(m, 'metrics', m._metrics)));
      for (const ev of m._events.slice(-50)) ws.send(JSON.stringify(envelope(m, 'event', ev)));
      ws.on('close', () => streams.get(m.id)?.delete(ws));
    } else ws.close(4404, 'no such endpoint');
  });
});
server.listen(Number(port), host, () => console.log(`mock sportz on http://${host}:${port}/ (operator token ${TOKEN})`));
const shutdown = () => {
  saveState();
  for (const c of wss.clients) c.close(1001, 'server shutting down');
  server.close();
  setTimeout(() => process.exit(0), 100);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
