//! How big a model call's future is: the one allocation every request makes.
//!
//! `ChatModel::invoke` returns the call boxed, and the box holds the whole request: the
//! transport's retries, the send, the read of the answer and its decoding. `cargo test -p
//! agentry --lib providers::future_size -- --nocapture` prints the figure; the test fails if a
//! change makes it grow past the recorded bound.

use crate::message::Message;
use crate::model::{ChatModel, ChatRequest};
use crate::providers::openai::OpenAiModel;

/// The recorded size in bytes, with room for other targets' layouts. It must stay under the
/// 1,032 bytes glibc's per-thread cache serves: a bigger box goes through the allocator's
/// slow path on every request. It was 1,040 bytes (and a second box of 904 for the send and
/// read) before the request was built outside the send's future and the answer was read
/// piece by piece instead of through `Response::bytes`.
const BOUND: usize = 1000;

#[test]
fn a_model_call_fits_the_allocators_cache() {
    let model = OpenAiModel::builder("gpt-4o-mini")
        .base_url("http://127.0.0.1:9/v1")
        .api_key("sk-future-size")
        .build()
        .expect("a model with a base URL and a key builds");
    // Made, measured and dropped, never polled: no request is sent.
    let call = model.invoke(ChatRequest::new(vec![Message::user("hi")]));
    let size = size_of_val(&*call);
    println!("model call future: {size} bytes");
    assert!(
        size <= BOUND,
        "the model call's future grew to {size} bytes (bound {BOUND})"
    );
}
