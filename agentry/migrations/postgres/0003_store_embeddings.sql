-- Vector search in the store: a document's embedding (NULL when the document was stored
-- without one), scored exactly in SQL. (pgvector is not required: see docs/src/retrieval.md.)
ALTER TABLE agent_store ADD COLUMN embedding REAL[];
