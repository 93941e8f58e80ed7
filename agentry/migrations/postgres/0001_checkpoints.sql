-- Threads, their append-only messages, their checkpoints and the leases of workers on them.
CREATE TABLE agent_threads (
    thread_id      TEXT PRIMARY KEY,
    latest_step    BIGINT NOT NULL,
    message_count  BIGINT NOT NULL,
    parent_thread  TEXT,
    parent_step    BIGINT,
    created_at_ms  BIGINT NOT NULL,
    updated_at_ms  BIGINT NOT NULL
);
CREATE INDEX agent_threads_updated ON agent_threads (updated_at_ms);

-- One row per message, written once: a checkpoint only records how many messages it has.
CREATE TABLE agent_messages (
    thread_id  TEXT NOT NULL,
    seq        BIGINT NOT NULL,
    body       TEXT NOT NULL,
    PRIMARY KEY (thread_id, seq)
);

CREATE TABLE agent_checkpoints (
    thread_id       TEXT NOT NULL,
    step            BIGINT NOT NULL,
    parent_thread   TEXT,
    parent_step     BIGINT,
    format_version  INTEGER NOT NULL,
    message_count   BIGINT NOT NULL,
    body            TEXT NOT NULL,
    created_at_ms   BIGINT NOT NULL,
    PRIMARY KEY (thread_id, step)
);

-- A row stays after release so that the fencing token only grows.
CREATE TABLE agent_leases (
    thread_id      TEXT PRIMARY KEY,
    worker         TEXT NOT NULL,
    token          BIGINT NOT NULL,
    expires_at_ms  BIGINT NOT NULL
);
