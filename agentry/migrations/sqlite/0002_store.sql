-- The long-term store: JSON documents under a namespace (segments joined by U+001F) and a key.
CREATE TABLE agent_store (
    namespace      TEXT NOT NULL,
    key            TEXT NOT NULL,
    value          TEXT NOT NULL,
    created_at_ms  INTEGER NOT NULL,
    updated_at_ms  INTEGER NOT NULL,
    expires_at_ms  INTEGER,
    UNIQUE (namespace, key)
);
CREATE INDEX agent_store_expires ON agent_store (expires_at_ms) WHERE expires_at_ms IS NOT NULL;

-- Full-text index over every string in a document, kept in step by triggers (rowid = the row's).
CREATE VIRTUAL TABLE agent_store_fts USING fts5 (text, content = '');

CREATE TRIGGER agent_store_fts_insert AFTER INSERT ON agent_store BEGIN
    INSERT INTO agent_store_fts (rowid, text)
    VALUES (new.rowid, (SELECT coalesce(group_concat(value, ' '), '') FROM json_tree(new.value) WHERE type = 'text'));
END;
CREATE TRIGGER agent_store_fts_delete AFTER DELETE ON agent_store BEGIN
    INSERT INTO agent_store_fts (agent_store_fts, rowid, text)
    VALUES ('delete', old.rowid, (SELECT coalesce(group_concat(value, ' '), '') FROM json_tree(old.value) WHERE type = 'text'));
END;
CREATE TRIGGER agent_store_fts_update AFTER UPDATE OF value ON agent_store BEGIN
    INSERT INTO agent_store_fts (agent_store_fts, rowid, text)
    VALUES ('delete', old.rowid, (SELECT coalesce(group_concat(value, ' '), '') FROM json_tree(old.value) WHERE type = 'text'));
    INSERT INTO agent_store_fts (rowid, text)
    VALUES (new.rowid, (SELECT coalesce(group_concat(value, ' '), '') FROM json_tree(new.value) WHERE type = 'text'));
END;
