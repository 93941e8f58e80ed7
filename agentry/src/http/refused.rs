//! Requests the server refused without processing them, which are safe to send again at once.
//!
//! An HTTP/2 server may refuse a stream (`REFUSED_STREAM`) or close a connection gracefully
//! (`GOAWAY` with `NO_ERROR`) while requests on it were never started (RFC 9113, section 8.7).
//! reqwest resends those itself, but only through a layer that copies every request (headers,
//! URI, extensions) before sending it, in case it is refused. The SDK's clients turn that
//! layer off, and the providers' transport resends from the body each attempt keeps anyway:
//! nothing is copied unless a request actually is refused.

use std::error::Error;

/// How often one attempt is sent again after a refusal (reqwest's default too). These resends
/// are immediate and do not count against the [`RetryPolicy`](super::RetryPolicy).
pub(crate) const MAX_RESENDS: u32 = 2;

/// Whether `err` says the server refused the request before processing it.
pub(crate) fn is_refused(err: &reqwest::Error) -> bool {
    let mut source = err.source();
    while let Some(err) = source {
        if let Some(h2) = err.downcast_ref::<h2::Error>() {
            return is_refused_h2(h2);
        }
        source = err.source();
    }
    false
}

fn is_refused_h2(err: &h2::Error) -> bool {
    let from_server = err.is_remote();
    let graceful_close = err.is_go_away() && err.reason() == Some(h2::Reason::NO_ERROR);
    let refused_stream = err.is_reset() && err.reason() == Some(h2::Reason::REFUSED_STREAM);
    from_server && (graceful_close || refused_stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_refusal_by_the_server_counts() {
        let refused: h2::Error = h2::Reason::REFUSED_STREAM.into();
        // An error built from a reason is a local one: the server did not send it.
        assert!(!refused.is_remote());
        assert!(!is_refused_h2(&refused));
    }
}
