//! Keeping secrets out of a cassette: headers and query parameters that carry credentials
//! are written as `[scrubbed]`, and any secret that is echoed elsewhere (in a body, say) is
//! replaced wherever it occurs.

use std::collections::BTreeMap;

use reqwest::header::HeaderMap;

/// What a scrubbed value is written as.
pub(crate) const SCRUBBED: &str = "[scrubbed]";

/// Headers scrubbed in every cassette, requests and responses alike.
pub(crate) const DEFAULT_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "x-goog-api-key",
    "api-key",
    "cookie",
    "set-cookie",
];

/// Query parameters scrubbed in every cassette.
pub(crate) const DEFAULT_QUERY: &[&str] = &[
    "key",
    "api_key",
    "apikey",
    "api-key",
    "access_token",
    "token",
    "sig",
    "signature",
];

/// Secrets shorter than this are not searched for in free text (a short value would match
/// ordinary words); their headers are still scrubbed.
const MIN_SECRET: usize = 8;

/// The header and query names to scrub, lowercase.
#[derive(Clone, Debug)]
pub(crate) struct Names {
    pub(crate) headers: Vec<String>,
    pub(crate) query: Vec<String>,
}

impl Default for Names {
    fn default() -> Self {
        Names {
            headers: DEFAULT_HEADERS.iter().map(|s| (*s).to_owned()).collect(),
            query: DEFAULT_QUERY.iter().map(|s| (*s).to_owned()).collect(),
        }
    }
}

impl Names {
    fn header(&self, name: &str) -> bool {
        self.headers.iter().any(|h| h.eq_ignore_ascii_case(name))
    }

    /// `headers` as written to the file. A header is scrubbed when its name is in the list,
    /// is one of `also` (the model's extra headers, which are secrets), or its value is
    /// marked sensitive; the values of scrubbed headers are added to `secrets`.
    pub(crate) fn headers(
        &self,
        headers: &HeaderMap,
        also: &[String],
        secrets: &mut Vec<String>,
    ) -> BTreeMap<String, String> {
        let mut out: BTreeMap<String, String> = BTreeMap::new();
        for (name, value) in headers {
            let name = name.as_str();
            let secret = value.is_sensitive()
                || self.header(name)
                || also.iter().any(|a| a.eq_ignore_ascii_case(name));
            let text = if secret {
                let raw = String::from_utf8_lossy(value.as_bytes()).into_owned();
                if let Some(token) = raw.split_once(' ').map(|(_, t)| t.trim().to_owned()) {
                    secrets.push(token);
                }
                secrets.push(raw);
                SCRUBBED.to_owned()
            } else {
                String::from_utf8_lossy(value.as_bytes()).into_owned()
            };
            out.entry(name.to_owned())
                .and_modify(|v| {
                    v.push_str(", ");
                    v.push_str(&text);
                })
                .or_insert(text);
        }
        out
    }

    /// `url` with the values of the listed query parameters scrubbed (their values are added
    /// to `secrets`).
    pub(crate) fn url(&self, url: &reqwest::Url, secrets: &mut Vec<String>) -> String {
        let Some(query) = url.query() else {
            return url.to_string();
        };
        let mut parts = Vec::new();
        for part in query.split('&') {
            let (name, value) = part.split_once('=').unwrap_or((part, ""));
            if self.query.iter().any(|q| q.eq_ignore_ascii_case(name)) && !value.is_empty() {
                secrets.push(value.to_owned());
                parts.push(format!("{name}={SCRUBBED}"));
            } else {
                parts.push(part.to_owned());
            }
        }
        let mut out = url.clone();
        out.set_query(None);
        format!("{out}?{}", parts.join("&"))
    }
}

/// `text` with every secret of `secrets` (long enough to be searched for) replaced.
pub(crate) fn redact(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_owned();
    for secret in secrets {
        if secret.len() >= MIN_SECRET && out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), SCRUBBED);
        }
    }
    out
}

/// `bytes` with every secret of `secrets` (long enough to be searched for) replaced, for a
/// body that is not text.
pub(crate) fn redact_bytes(bytes: Vec<u8>, secrets: &[String]) -> Vec<u8> {
    let mut out = bytes;
    for secret in secrets.iter().filter(|s| s.len() >= MIN_SECRET) {
        let finder = memchr::memmem::Finder::new(secret.as_bytes());
        if finder.find(&out).is_none() {
            continue;
        }
        let mut replaced = Vec::with_capacity(out.len());
        let mut rest = out.as_slice();
        while let Some(at) = finder.find(rest) {
            replaced.extend_from_slice(&rest[..at]);
            replaced.extend_from_slice(SCRUBBED.as_bytes());
            rest = &rest[at + secret.len()..];
        }
        replaced.extend_from_slice(rest);
        out = replaced;
    }
    out
}

/// The path and query of a recorded or sent URL (what replay compares: the host differs
/// between a recording against a test server and its replay).
pub(crate) fn path_and_query(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.find('/').map_or("/", |i| &rest[i..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_keys_are_scrubbed_and_remembered() {
        let url: reqwest::Url = "https://example.com/v1/models/m:stream?alt=sse&key=AIzaSECRET123"
            .parse()
            .unwrap();
        let mut secrets = Vec::new();
        let out = Names::default().url(&url, &mut secrets);
        assert_eq!(
            out,
            "https://example.com/v1/models/m:stream?alt=sse&key=[scrubbed]"
        );
        assert_eq!(secrets, ["AIzaSECRET123"]);
        assert_eq!(
            path_and_query(&out),
            "/v1/models/m:stream?alt=sse&key=[scrubbed]"
        );
    }

    #[test]
    fn short_secrets_are_not_searched_for() {
        let secrets = vec!["abc".to_owned(), "sk-longer-secret".to_owned()];
        assert_eq!(
            redact("abc said sk-longer-secret", &secrets),
            "abc said [scrubbed]"
        );
        let bytes = [b"\xff sk-longer-secret \xfe".as_slice()].concat();
        assert_eq!(
            redact_bytes(bytes, &secrets),
            b"\xff [scrubbed] \xfe".to_vec()
        );
    }
}
