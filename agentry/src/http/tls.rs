//! The trust roots of the HTTP clients this crate builds.
//!
//! They are the Mozilla root program's certificates compiled into the binary
//! (`webpki-root-certs`), as they were with reqwest 0.12's `rustls-tls` feature. reqwest
//! 0.13's `rustls` feature would verify against the operating system's store instead
//! (`rustls-platform-verifier`): a container image without a CA bundle could then no longer
//! reach the providers, and CAs added to the machine would be trusted without being asked.
//! A client given with `http_client` keeps its own settings.

use std::sync::LazyLock;

use reqwest::{Certificate, ClientBuilder};

/// The bundled roots, converted once per process; each client still builds its own store.
static ROOTS: LazyLock<Vec<Certificate>> = LazyLock::new(|| {
    webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        // With rustls, `from_der` only keeps the bytes and cannot fail; a certificate it
        // ever refused would be one root fewer, which the TLS handshake reports.
        .filter_map(|der| Certificate::from_der(der).ok())
        .collect()
});

/// A client builder that trusts the bundled roots and nothing else.
pub(crate) fn client_builder() -> ClientBuilder {
    reqwest::Client::builder().tls_certs_only(ROOTS.iter().cloned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_root_is_kept_and_a_client_builds() {
        assert_eq!(ROOTS.len(), webpki_root_certs::TLS_SERVER_ROOT_CERTS.len());
        client_builder()
            .build()
            .expect("a client with the bundled roots");
    }
}
