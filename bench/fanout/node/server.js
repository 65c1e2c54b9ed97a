// The Node reference for the fan-out benchmark (issue 20): the Sportz match centre as its
// docs describe it — `ws` on one HTTP server, an in-memory `matchSubscribers` map of rooms,
// `JSON.stringify` once per broadcast, a 30 s heartbeat. Rows are kept in memory (the Sportz
// docs insert them with Drizzle into Postgres first), so this reference does less work per
// POST than sportz, which commits every row to SQLite before broadcasting it.
//
// Usage: node server.js PORT
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, WebSocket } from 'ws';

const port = Number(process.argv[2] || process.env.PORT || 8090);
const matches = new Map(); // id → match
const commentary = new Map(); // id → rows
const matchSubscribers = new Map(); // id → Set<socket>

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readJson(req, res, then) {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (c) => { raw += c; if (raw.length > 1 << 20) req.destroy(); });
  req.on('end', () => {
    let body;
    try { body = JSON.parse(raw); } catch { return send(res, 400, { error: 'invalid JSON' }); }
    then(body);
  });
}

function broadcastToMatch(matchId, message) {
  const subs = matchSubscribers.get(matchId);
  if (!subs || subs.size === 0) return;
  const payload = JSON.stringify(message);
  for (const socket of subs) {
    if (socket.readyState === WebSocket.OPEN) socket.send(payload);
  }
}

function broadcastToAll(wss, message) {
  const payload = JSON.stringify(message);
  for (const socket of wss.clients) {
    if (socket.readyState === WebSocket.OPEN) socket.send(payload);
  }
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const parts = url.pathname.split('/').filter(Boolean);
  if (req.method === 'GET' && url.pathname === '/health') return send(res, 200, { status: 'ok' });
  if (req.method === 'POST' && parts.length === 1 && parts[0] === 'matches') {
    return readJson(req, res, (b) => {
      if (typeof b.homeTeam !== 'string' || typeof b.awayTeam !== 'string') {
        return send(res, 400, { error: 'homeTeam and awayTeam are required' });
      }
      const now = new Date().toISOString();
      const m = { id: randomUUID(), homeTeam: b.homeTeam, awayTeam: b.awayTeam, homeScore: 0, awayScore: 0, status: 'scheduled', createdAt: now };
      matches.set(m.id, m);
      commentary.set(m.id, []);
      broadcastToAll(wss, { type: 'match_created', data: m });
      send(res, 201, { data: m });
    });
  }
  if (req.method === 'POST' && parts.length === 3 && parts[0] === 'matches' && parts[2] === 'commentary') {
    const id = parts[1];
    if (!matches.has(id)) return send(res, 404, { error: 'match not found' });
    return readJson(req, res, (b) => {
      if (!Number.isInteger(b.sequence) || typeof b.eventType !== 'string' || typeof b.message !== 'string') {
        return send(res, 400, { error: 'sequence, eventType and message are required' });
      }
      const rows = commentary.get(id);
      const row = {
        id: rows.length + 1, matchId: id, minute: b.minute ?? null, sequence: b.sequence,
        period: b.period ?? null, eventType: b.eventType, actor: b.actor ?? null, team: b.team ?? null,
        message: b.message, metadata: b.metadata ?? null, tags: b.tags ?? [], createdAt: new Date().toISOString(),
      };
      rows.push(row);
      broadcastToMatch(id, { type: 'commentary', data: row });
      send(res, 201, { data: row });
    });
  }
  send(res, 404, { error: 'not found' });
});

const wss = new WebSocketServer({ server, path: '/ws', maxPayload: 1 << 20 });
wss.on('connection', (socket) => {
  socket.isAlive = true;
  socket.rooms = new Set();
  socket.on('pong', () => { socket.isAlive = true; });
  socket.send(JSON.stringify({ type: 'welcome' }));
  socket.on('message', (data) => {
    let msg;
    try { msg = JSON.parse(data.toString()); } catch {
      return socket.send(JSON.stringify({ type: 'error', message: 'invalid JSON' }));
    }
    const id = msg && msg.matchId;
    if (msg.type === 'subscribe' && typeof id === 'string') {
      if (!matchSubscribers.has(id)) matchSubscribers.set(id, new Set());
      matchSubscribers.get(id).add(socket);
      socket.rooms.add(id);
      return socket.send(JSON.stringify({ type: 'subscribed', matchId: id }));
    }
    if (msg.type === 'unsubscribe' && typeof id === 'string') {
      matchSubscribers.get(id)?.delete(socket);
      socket.rooms.delete(id);
      return socket.send(JSON.stringify({ type: 'unsubscribed', matchId: id }));
    }
    socket.send(JSON.stringify({ type: 'error', message: 'unknown message' }));
  });
  socket.on('close', () => {
    for (const id of socket.rooms) matchSubscribers.get(id)?.delete(socket);
  });
});

const heartbeat = setInterval(() => {
  for (const socket of wss.clients) {
    if (!socket.isAlive) { socket.terminate(); continue; }
    socket.isAlive = false;
    socket.ping();
  }
}, 30000);
wss.on('close', () => clearInterval(heartbeat));

server.listen(port, '127.0.0.1', () => console.log(`node reference listening on 127.0.0.1:${port}`));
