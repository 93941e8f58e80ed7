//! The agent runtime: the model → tools → model loop.
