-- Threads, their append-only messages, their checkpoints and the leases of workers on them.
CREATE TABLE agent_threads (
    thread_id      TEXT PRIMARY KEY NOT NULL,
    latest_step    INTEGER NOT NULL,
    message_count  INTEGER NOT NULL,
    parent_thread  TEXT,
    parent_step    INTEGER,
    created_at_ms  INTEGER NOT NULL,
    updated_at_ms  INTEGER NOT NULL
);
CREATE INDEX agent_threads_updated ON agent_threads (updated_at_ms);

-- One row per message, written once: a checkpoint only records how many messages it has.
CREATE TABLE agent_messages (
    thread_id  TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    body       TEXT NOT NULL,
    PRIMARY KEY (thread_id, seq)
) WITHOUT ROWID;

CREATE TABLE agent_checkpoints (
    thread_id       TEXT NOT NULL,
    step            INTEGER NOT NULL,
    parent_thread   TEXT,
    parent_step     INTEGER,
    format_version  INTEGER NOT NULL,
    message_count   INTEGER NOT NULL,
    body            TEXT NOT NULL,
    created_at_ms   INTEGER NOT NULL,
    PRIMARY KEY (thread_id, step)
) WITHOUT ROWID;

-- A row stays after release so that the fencing token only grows.
CREATE TABLE agent_leases (
    thread_id      TEXT PRIMARY KEY NOT NULL,
    worker         TEXT NOT NULL,
    token          INTEGER NOT NULL,
    expires_at_ms  INTEGER NOT NULL
) WITHOUT ROWID;
