-- The long-term store: JSON documents under a namespace (segments joined by U+001F) and a key.
CREATE TABLE agent_store (
    namespace      TEXT NOT NULL,
    key            TEXT NOT NULL,
    value          JSONB NOT NULL,
    search         TSVECTOR GENERATED ALWAYS AS (jsonb_to_tsvector('simple', value, '["string"]')) STORED,
    created_at_ms  BIGINT NOT NULL,
    updated_at_ms  BIGINT NOT NULL,
    expires_at_ms  BIGINT,
    PRIMARY KEY (namespace, key)
);
CREATE INDEX agent_store_search ON agent_store USING GIN (search);
CREATE INDEX agent_store_value ON agent_store USING GIN (value jsonb_path_ops);
CREATE INDEX agent_store_expires ON agent_store (expires_at_ms) WHERE expires_at_ms IS NOT NULL;
