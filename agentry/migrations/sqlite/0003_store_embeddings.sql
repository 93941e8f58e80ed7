-- Vector search in the store: a document's embedding as little-endian f32 values (NULL when the
-- document was stored without one). Scored exactly, in Rust.
ALTER TABLE agent_store ADD COLUMN embedding BLOB;
