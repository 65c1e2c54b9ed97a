-- The highest `seq` of a worker status update applied to each session: an older update that
-- arrives later (a stream entry replayed after a transient store error) is ignored (issue 18).
ALTER TABLE processing_sessions ADD COLUMN last_status_seq INTEGER NOT NULL DEFAULT 0;
