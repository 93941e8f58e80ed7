//! Why a hand-written run failed.

/// Why a hand-written run failed.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// The request could not be sent or the answer not read.
    #[error("HTTP: {0}")]
    Http(#[from] reqwest::Error),
    /// The request body could not be written.
    #[error("request body: {0}")]
    Body(#[source] serde_json::Error),
    /// The server answered with an error status.
    #[error("status {status}: {body}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The body.
        body: String,
    },
    /// The answer has no choices.
    #[error("the answer has no choices")]
    NoChoices,
    /// A streamed chunk does not parse.
    #[error("bad chunk: {source}")]
    Chunk {
        /// The parse error.
        source: serde_json::Error,
    },
    /// The stream ended before `data: [DONE]`.
    #[error("the stream ended before [DONE]")]
    Truncated,
    /// The model called a tool we do not have.
    #[error("unknown tool `{0}`")]
    UnknownTool(String),
    /// The model's tool arguments do not parse.
    #[error("bad arguments for `{tool}`: {source}")]
    Arguments {
        /// The tool.
        tool: String,
        /// The parse error.
        source: serde_json::Error,
    },
    /// The base URL does not parse.
    #[error("invalid base URL `{url}`: {reason}")]
    Url {
        /// The URL.
        url: String,
        /// Why it does not parse.
        reason: String,
    },
    /// The model kept calling tools.
    #[error("no final answer after {0} requests")]
    TooManyTurns(u32),
}
