//! The suite: every scenario instantiated as a test for one wire format.

/// Instantiates every scenario as a test for one wire format.
#[macro_export]
macro_rules! conformance {
    ($module:ident, $wire:expr) => {
        mod $module {
            use super::{agent, hardening, history, keys, scenarios};

            #[tokio::test]
            async fn continue_a_conversation_after_a_final_answer() {
                history::continue_after_a_final_answer(&$wire).await
            }
            #[tokio::test]
            async fn continue_a_conversation_after_an_output_error() {
                history::continue_after_an_output_error(&$wire).await
            }

            #[tokio::test]
            async fn agent_run_with_parallel_tool_calls() {
                agent::agent_run(&$wire).await
            }
            #[tokio::test]
            async fn agent_stream_with_parallel_tool_calls() {
                agent::agent_stream(&$wire).await
            }

            #[tokio::test]
            async fn single_tool_call() {
                scenarios::single_tool_call(&$wire).await
            }
            #[tokio::test]
            async fn tool_choice_modes() {
                scenarios::tool_choice_modes(&$wire).await
            }
            #[tokio::test]
            async fn parallel_tool_calls() {
                scenarios::parallel_tool_calls(&$wire).await
            }
            #[tokio::test]
            async fn tool_result_follow_up() {
                scenarios::tool_result_follow_up(&$wire).await
            }
            #[tokio::test]
            async fn streamed_tool_calls() {
                scenarios::streamed_tool_calls(&$wire).await
            }
            #[tokio::test]
            async fn structured_output() {
                scenarios::structured_output(&$wire).await
            }
            #[tokio::test]
            async fn usage_and_length() {
                scenarios::usage_and_length(&$wire).await
            }
            #[tokio::test]
            async fn errors() {
                scenarios::errors(&$wire).await
            }
            #[tokio::test]
            async fn error_inside_stream() {
                scenarios::error_inside_stream(&$wire).await
            }
            #[tokio::test]
            async fn stream_cut_off() {
                scenarios::stream_cut_off(&$wire).await
            }

            #[tokio::test]
            async fn key_never_leaves() {
                keys::key_never_leaves(&$wire).await
            }
            #[tokio::test]
            async fn error_envelope_in_200() {
                hardening::error_envelope_in_200(&$wire).await
            }
            #[tokio::test]
            async fn response_caps() {
                hardening::response_caps(&$wire).await
            }
            #[tokio::test]
            async fn tool_call_ids_made_unique() {
                hardening::tool_call_ids_made_unique(&$wire).await
            }
            #[tokio::test]
            async fn exact_sampling_values() {
                hardening::exact_sampling_values(&$wire).await
            }
            #[tokio::test]
            async fn body_read_failures_are_network_errors() {
                hardening::body_read_failures_are_network_errors(&$wire).await
            }
        }
    };
}
