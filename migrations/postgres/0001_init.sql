-- sportz store schema, version 1 (Postgres). Released files are never edited: changes are new files.
-- Match status: one of the `MatchStatus` names (see migrations/README.md); the match-card phase
-- (scheduled/live/finished) is derived from status and times and is not stored.

CREATE TABLE matches (
    id                   TEXT             NOT NULL PRIMARY KEY,  -- match_<ULID>
    name                 TEXT             NOT NULL,
    sport                TEXT             NOT NULL,
    home_team            TEXT             NOT NULL,
    away_team            TEXT             NOT NULL,
    competition          TEXT,
    start_time           TIMESTAMPTZ,
    end_time             TIMESTAMPTZ,
    home_score           INTEGER          NOT NULL DEFAULT 0 CHECK (home_score >= 0),
    away_score           INTEGER          NOT NULL DEFAULT 0 CHECK (away_score >= 0),
    status               TEXT             NOT NULL DEFAULT 'draft' CHECK (status IN
                             ('draft', 'ready', 'starting', 'processing', 'paused', 'completed', 'failed')),
    status_message       TEXT,
    last_error           TEXT,
    video_source_type    TEXT CHECK (video_source_type IN
                             ('file', 'http', 'rtmp', 'rtsp', 'srt', 'device', 'synthetic')),
    video_source_value   TEXT,
    target_fps           DOUBLE PRECISION CHECK (target_fps > 0),
    realtime             BOOLEAN          NOT NULL DEFAULT TRUE,
    model                TEXT,
    confidence_threshold DOUBLE PRECISION NOT NULL DEFAULT 0.3 CHECK (confidence_threshold BETWEEN 0 AND 1),
    enable_tracking      BOOLEAN          NOT NULL DEFAULT TRUE,
    enable_teams         BOOLEAN          NOT NULL DEFAULT TRUE,
    enable_events        BOOLEAN          NOT NULL DEFAULT TRUE,
    calibration          JSONB            NOT NULL DEFAULT '[]',  -- array of point pairs
    current_session_id   TEXT,                                    -- ses_<ULID>, managed by the store
    event_count          BIGINT           NOT NULL DEFAULT 0 CHECK (event_count >= 0),
    created_at           TIMESTAMPTZ      NOT NULL,
    updated_at           TIMESTAMPTZ      NOT NULL,
    CHECK ((video_source_type IS NULL) = (video_source_value IS NULL)),
    CHECK (end_time IS NULL OR start_time IS NULL OR end_time >= start_time)
);
CREATE INDEX matches_created ON matches (created_at DESC, id DESC);
CREATE INDEX matches_status ON matches (status);

CREATE TABLE commentary (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    match_id   TEXT        NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    minute     INTEGER CHECK (minute >= 0),
    sequence   INTEGER     NOT NULL CHECK (sequence > 0),
    period     TEXT,
    event_type TEXT        NOT NULL,
    actor      TEXT,
    team       TEXT,
    message    TEXT        NOT NULL,
    metadata   JSONB,
    tags       TEXT[]      NOT NULL DEFAULT '{}',
    created_at TIMESTAMPTZ NOT NULL,
    UNIQUE (match_id, sequence)
);
CREATE INDEX commentary_newest ON commentary (match_id, created_at DESC, id DESC);

CREATE TABLE processing_sessions (
    id               TEXT        NOT NULL PRIMARY KEY,            -- ses_<ULID>
    match_id         TEXT        NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    worker_id        TEXT,
    status           TEXT        NOT NULL DEFAULT 'starting' CHECK (status IN
                         ('starting', 'processing', 'reconnecting', 'paused', 'completed', 'stopped', 'failed')),
    device           TEXT,
    config           JSONB       NOT NULL,                        -- SessionConfig at start
    frames_processed BIGINT      NOT NULL DEFAULT 0 CHECK (frames_processed >= 0),
    avg_fps          DOUBLE PRECISION,
    avg_latency_ms   DOUBLE PRECISION,
    error            TEXT,
    started_at       TIMESTAMPTZ NOT NULL,
    stopped_at       TIMESTAMPTZ,
    updated_at       TIMESTAMPTZ NOT NULL
);
CREATE INDEX processing_sessions_match ON processing_sessions (match_id, started_at DESC, id DESC);

CREATE TABLE events (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id        TEXT             NOT NULL,                    -- evt_<ULID>
    match_id        TEXT             NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    session_id      TEXT             REFERENCES processing_sessions (id) ON DELETE CASCADE,
    kind            TEXT             NOT NULL,
    video_timestamp DOUBLE PRECISION NOT NULL,
    frame_number    BIGINT           NOT NULL CHECK (frame_number >= 0),
    confidence      DOUBLE PRECISION NOT NULL,
    payload         JSONB            NOT NULL,                    -- the contract's event.data
    created_at      TIMESTAMPTZ      NOT NULL,
    UNIQUE (match_id, event_id)
);
CREATE INDEX events_order ON events (match_id, frame_number, id);
CREATE INDEX events_session ON events (session_id);

CREATE TABLE api_tokens (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token_hash   TEXT        NOT NULL UNIQUE,                     -- hex SHA-256 of the secret
    role         TEXT        NOT NULL CHECK (role IN ('operator', 'viewer')),
    label        TEXT,
    created_at   TIMESTAMPTZ NOT NULL,
    last_used_at TIMESTAMPTZ
);

CREATE TABLE settings (
    key        TEXT        NOT NULL PRIMARY KEY,
    value      JSONB       NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
