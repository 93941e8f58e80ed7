//! A process-wide switch that keeps test suites off the real network.
//!
//! Call [`deny_real_network`] at the start of a test (or set the environment variable
//! `AGENTRY_DENY_REAL_NETWORK=1`), and every model request to a host other than
//! `localhost`, `127.0.0.0/8` or `::1` fails with
//! [`ModelError::Configuration`](crate::model::ModelError::Configuration) before anything is
//! sent. Requests to an in-process mock server on 127.0.0.1 are unaffected.

use std::net::IpAddr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::model::ModelError;

/// The environment variable that denies real network requests when set to `1` or `true`.
pub(super) const DENY_ENV: &str = "AGENTRY_DENY_REAL_NETWORK";

/// The variable's name before the crate was renamed `agentry`. Still read, with a deprecation
/// warning, when [`DENY_ENV`] is not set; it will stop working in the next minor release.
#[deprecated(since = "0.1.0", note = "set AGENTRY_DENY_REAL_NETWORK instead")]
pub(super) const DENY_ENV_OLD: &str = "AGENT_SDK_DENY_REAL_NETWORK";

static DENIED: AtomicBool = AtomicBool::new(false);

/// Refuses, from now on and in the whole process, model requests to non-loopback hosts.
pub fn deny_real_network() {
    DENIED.store(true, Ordering::SeqCst);
}

/// Undoes [`deny_real_network`] (the environment variable, if set, still applies).
pub fn allow_real_network() {
    DENIED.store(false, Ordering::SeqCst);
}

/// Whether requests to non-loopback hosts are refused.
pub fn is_real_network_denied() -> bool {
    static FROM_ENV: OnceLock<bool> = OnceLock::new();
    DENIED.load(Ordering::Relaxed)
        || *FROM_ENV.get_or_init(|| {
            #[allow(deprecated)]
            let value = crate::env::var_renamed(DENY_ENV, DENY_ENV_OLD);
            value.is_some_and(|v| matches!(v.trim(), "1" | "true" | "yes"))
        })
}

/// Fails when real network requests are denied and `url` is not a loopback address.
pub(crate) fn check_url(url: &reqwest::Url) -> Result<(), ModelError> {
    if !is_real_network_denied() || is_loopback(url) {
        return Ok(());
    }
    Err(ModelError::Configuration(format!(
        "real network requests are denied in this process (agentry::http::deny_real_network or {DENY_ENV}); refused a request to {}",
        url.host_str().unwrap_or("<no host>")
    )))
}

fn is_loopback(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for ok in [
            "http://127.0.0.1:3000/v1",
            "http://localhost/v1",
            "http://[::1]:80/",
            "http://127.8.0.1/",
        ] {
            assert!(is_loopback(&ok.parse().unwrap()), "{ok}");
        }
        for bad in [
            "https://api.openai.com/v1",
            "http://10.0.0.1/",
            "http://localhost.evil.com/",
        ] {
            assert!(!is_loopback(&bad.parse().unwrap()), "{bad}");
        }
    }
}
