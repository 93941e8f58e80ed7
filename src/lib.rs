//! This library exists only to test the guide.
//!
//! The root package (`agentry-examples`) holds the runnable examples, the integration tests
//! and the benchmarks. This library target has no code of its own: under `cfg(doctest)` it
//! includes each chapter of the mdBook guide in `docs/src/` and the two crates'
//! READMEs, so that every Rust block in them is compiled (and, unless marked `no_run`, run)
//! by `cargo test --workspace` like any doctest. A block that stops compiling after an API
//! change fails CI instead of going stale in the documentation.

macro_rules! chapters {
    ($($name:ident => $path:literal,)*) => {
        $(
            #[cfg(doctest)]
            #[doc = include_str!($path)]
            pub struct $name;
        )*
    };
}

chapters! {
    Introduction => "../docs/src/introduction.md",
    GettingStarted => "../docs/src/getting-started.md",
    Tools => "../docs/src/tools.md",
    StructuredOutput => "../docs/src/structured-output.md",
    Agents => "../docs/src/agents.md",
    Providers => "../docs/src/providers.md",
    Multimodal => "../docs/src/multimodal.md",
    Streaming => "../docs/src/streaming.md",
    Middleware => "../docs/src/middleware.md",
    Guardrails => "../docs/src/guardrails.md",
    Threads => "../docs/src/threads.md",
    Retrieval => "../docs/src/retrieval.md",
    React => "../docs/src/react.md",
    Mcp => "../docs/src/mcp.md",
    MultiAgent => "../docs/src/multi-agent.md",
    Serving => "../docs/src/serving.md",
    ServingWebChat => "../docs/src/serving-web-chat.md",
    Observability => "../docs/src/observability.md",
    Testing => "../docs/src/testing.md",
    Evals => "../docs/src/evals.md",
    Performance => "../docs/src/performance.md",
    Architecture => "../docs/src/architecture.md",
    Comparison => "../docs/src/comparison.md",
    FromLangChain => "../docs/src/from-langchain.md",
    AgentryReadme => "../agentry/README.md",
    MacrosReadme => "../agentry-macros/README.md",
}
