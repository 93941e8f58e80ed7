//! Test doubles — models and servers that stand in for real providers in tests.
//!
//! Nothing here talks to a real provider. Every type is a test double and is named as one.
//! [`scripting`] has the helpers to play the model's part behind a [`MockServer`]: read a
//! request's tool results and answer in the output mode it asks for.

mod embeddings;
mod function;
mod mock_model;
mod mock_server;
mod postgres;
mod schema_override;
mod schema_values;
mod scripted;
pub mod scripting;
mod test_model;

pub use crate::http::{allow_real_network, deny_real_network};
pub use embeddings::HashEmbeddingModel;
pub use function::{Answer, FunctionModel};
pub use mock_model::{mock_model, mock_model_builder};
pub use mock_server::{MockResponse, MockServer, RecordedRequest};
pub use postgres::{PostgresHarnessError, PostgresServer};
pub use schema_override::{
    SampleOrigin, SchemaOverrideError, check_schema_override, check_tool_schema,
};
pub use schema_values::example_value;
pub use scripted::{ScriptedModel, Turn};
pub use test_model::TestModel;
