-- sportz store schema, version 1 (SQLite). Released files are never edited: changes are new files.
-- Times are INTEGER microseconds since the Unix epoch (UTC); JSON columns hold JSON text.
-- Match status: one of the `MatchStatus` names (see migrations/README.md); the match-card phase
-- (scheduled/live/finished) is derived from status and times and is not stored.

CREATE TABLE matches (
    id                   TEXT    NOT NULL PRIMARY KEY,          -- match_<ULID>
    name                 TEXT    NOT NULL,
    sport                TEXT    NOT NULL,
    home_team            TEXT    NOT NULL,
    away_team            TEXT    NOT NULL,
    competition          TEXT,
    start_time           INTEGER,
    end_time             INTEGER,
    home_score           INTEGER NOT NULL DEFAULT 0 CHECK (home_score >= 0),
    away_score           INTEGER NOT NULL DEFAULT 0 CHECK (away_score >= 0),
    status               TEXT    NOT NULL DEFAULT 'draft' CHECK (status IN
                             ('draft', 'ready', 'starting', 'processing', 'paused', 'completed', 'failed')),
    status_message       TEXT,
    last_error           TEXT,
    video_source_type    TEXT CHECK (video_source_type IN
                             ('file', 'http', 'rtmp', 'rtsp', 'srt', 'device', 'synthetic')),
    video_source_value   TEXT,
    target_fps           REAL CHECK (target_fps > 0),
    realtime             INTEGER NOT NULL DEFAULT 1 CHECK (realtime IN (0, 1)),
    model                TEXT,
    confidence_threshold REAL    NOT NULL DEFAULT 0.3 CHECK (confidence_threshold BETWEEN 0 AND 1),
    enable_tracking      INTEGER NOT NULL DEFAULT 1 CHECK (enable_tracking IN (0, 1)),
    enable_teams         INTEGER NOT NULL DEFAULT 1 CHECK (enable_teams IN (0, 1)),
    enable_events        INTEGER NOT NULL DEFAULT 1 CHECK (enable_events IN (0, 1)),
    calibration          TEXT    NOT NULL DEFAULT '[]',          -- JSON array of point pairs
    current_session_id   TEXT,                                   -- ses_<ULID>, managed by the store
    event_count          INTEGER NOT NULL DEFAULT 0 CHECK (event_count >= 0),
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    CHECK ((video_source_type IS NULL) = (video_source_value IS NULL)),
    CHECK (end_time IS NULL OR start_time IS NULL OR end_time >= start_time)
);
CREATE INDEX matches_created ON matches (created_at DESC, id DESC);
CREATE INDEX matches_status ON matches (status);

CREATE TABLE commentary (
    id          INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    match_id    TEXT    NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    minute      INTEGER CHECK (minute >= 0),
    sequence    INTEGER NOT NULL CHECK (sequence > 0),
    period      TEXT,
    event_type  TEXT    NOT NULL,
    actor       TEXT,
    team        TEXT,
    message     TEXT    NOT NULL,
    metadata    TEXT,                                            -- JSON object or NULL
    tags        TEXT    NOT NULL DEFAULT '[]',                   -- JSON array of strings
    created_at  INTEGER NOT NULL,
    UNIQUE (match_id, sequence)
);
CREATE INDEX commentary_newest ON commentary (match_id, created_at DESC, id DESC);

CREATE TABLE processing_sessions (
    id               TEXT    NOT NULL PRIMARY KEY,               -- ses_<ULID>
    match_id         TEXT    NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    worker_id        TEXT,
    status           TEXT    NOT NULL DEFAULT 'starting' CHECK (status IN
                         ('starting', 'processing', 'reconnecting', 'paused', 'completed', 'stopped', 'failed')),
    device           TEXT,
    config           TEXT    NOT NULL,                           -- JSON SessionConfig at start
    frames_processed INTEGER NOT NULL DEFAULT 0 CHECK (frames_processed >= 0),
    avg_fps          REAL,
    avg_latency_ms   REAL,
    error            TEXT,
    started_at       INTEGER NOT NULL,
    stopped_at       INTEGER,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX processing_sessions_match ON processing_sessions (match_id, started_at DESC, id DESC);

CREATE TABLE events (
    id              INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    event_id        TEXT    NOT NULL,                            -- evt_<ULID>
    match_id        TEXT    NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    session_id      TEXT    REFERENCES processing_sessions (id) ON DELETE CASCADE,
    kind            TEXT    NOT NULL,
    video_timestamp REAL    NOT NULL,
    frame_number    INTEGER NOT NULL CHECK (frame_number >= 0),
    confidence      REAL    NOT NULL,
    payload         TEXT    NOT NULL,                            -- JSON: the contract's event.data
    created_at      INTEGER NOT NULL,
    UNIQUE (match_id, event_id)
);
CREATE INDEX events_order ON events (match_id, frame_number, id);
CREATE INDEX events_session ON events (session_id);

CREATE TABLE api_tokens (
    id           INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    token_hash   TEXT    NOT NULL UNIQUE,                        -- hex SHA-256 of the secret
    role         TEXT    NOT NULL CHECK (role IN ('operator', 'viewer')),
    label        TEXT,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER
);

CREATE TABLE settings (
    key        TEXT    NOT NULL PRIMARY KEY,
    value      TEXT    NOT NULL,                                 -- JSON
    updated_at INTEGER NOT NULL
);
