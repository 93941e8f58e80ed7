//! Record and replay a model's HTTP traffic: test an agent against a real provider once,
//! then replay the recording in every CI run, offline and for free.
//!
//! A [`Cassette`] is a file of recorded interactions (one JSON object per line: the request,
//! and the response's status, headers and body, byte for byte, streams included). Give it to
//! any provider's builder with `.cassette(..)`; every request the model makes then goes
//! through it:
//!
//! * [`CassetteMode::Record`] sends each request for real and writes it and its response to
//!   the file (a streamed response as it streams), replacing what the file held.
//! * [`CassetteMode::Replay`] sends nothing: the response recorded at the request's place is
//!   fed to the same code a real response goes through (status mapping, retries, the SSE
//!   decoder, the [`ResponseLimits`](crate::http::ResponseLimits)). A request that differs
//!   from the recorded one fails with [`CassetteError::Drift`] and a diff of the two; fields
//!   that change from run to run can be left out of the comparison with
//!   [`Cassette::ignore`]. No API key is needed, and
//!   [`deny_real_network`](crate::http::deny_real_network) is not in the way.
//! * [`CassetteMode::RecordMissing`] replays what the file holds and records (appends) the
//!   requests that come after it.
//!
//! Requests are matched in order, one file per conversation: the n-th request is compared
//! with the n-th recorded one (method, path and query, and the body; the host is not
//! compared, so a recording made against a test server replays with a different address).
//!
//! Secrets never reach the file: the `authorization`, `x-api-key`, `x-goog-api-key`,
//! `api-key`, cookie headers and the model's extra headers are written as `[scrubbed]`, as
//! are API keys in query strings (`key=`, `api_key=`, ...), and the model's key is replaced
//! wherever else it occurs. More headers are scrubbed with [`Cassette::scrub_header`].
//!
//! [`Cassette::for_test`] makes "record once with a key, replay in CI" one line: it replays
//! the file when it exists, and the environment variable `AGENTRY_CASSETTES`
//! (`replay`, `record` or `record_missing`) overrides the mode.
//!
//! ```
//! use agentry::cassette::{Cassette, CassetteError};
//!
//! // Replaying a file that was never recorded says how to record it.
//! let err = Cassette::replay("tests/cassettes/no-such-file.jsonl").unwrap_err();
//! assert!(matches!(err, CassetteError::Missing { .. }));
//! assert!(err.to_string().contains("AGENTRY_CASSETTES=record"));
//! ```
//!
//! ```no_run
//! # #[cfg(feature = "openai")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use agentry::cassette::Cassette;
//! use agentry::providers::openai::OpenAiModel;
//!
//! let cassette = Cassette::for_test("tests/cassettes/weather.jsonl")?.ignore("/user");
//! let model = OpenAiModel::builder("gpt-4o-mini").cassette(cassette).build()?;
//! # let _ = model;
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "openai"))]
//! # fn main() {}
//! ```

mod drift;
mod error;
mod exchange;
mod file;
mod scrub;

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::Path;
use std::str::FromStr;
use std::sync::{Arc, Mutex, MutexGuard};

pub use error::CassetteError;
pub(crate) use exchange::{Outgoing, Turn};

use drift::Pattern;
use file::Interaction;

/// The environment variable that sets the mode of [`Cassette::for_test`].
pub const MODE_ENV: &str = "AGENTRY_CASSETTES";

/// What a [`Cassette`] does with a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CassetteMode {
    /// Answer from the file; send nothing.
    Replay,
    /// Send for real and write a new file.
    Record,
    /// Answer from the file while it lasts, then send for real and append.
    RecordMissing,
}

impl CassetteMode {
    /// The mode `AGENTRY_CASSETTES` asks for, `None` when it is not set (or empty).
    pub fn from_env() -> Result<Option<CassetteMode>, CassetteError> {
        match std::env::var(MODE_ENV) {
            Ok(value) if !value.trim().is_empty() => value.parse().map(Some),
            _ => Ok(None),
        }
    }

    /// The mode's name, as `AGENTRY_CASSETTES` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            CassetteMode::Replay => "replay",
            CassetteMode::Record => "record",
            CassetteMode::RecordMissing => "record_missing",
        }
    }
}

impl FromStr for CassetteMode {
    type Err = CassetteError;

    /// `replay`, `record` or `record_missing` (case and surrounding spaces do not matter;
    /// `record-missing` is accepted too).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "replay" => Ok(CassetteMode::Replay),
            "record" => Ok(CassetteMode::Record),
            "record_missing" | "record-missing" => Ok(CassetteMode::RecordMissing),
            _ => Err(CassetteError::BadMode {
                value: s.to_owned(),
            }),
        }
    }
}

impl fmt::Display for CassetteMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A file of recorded HTTP interactions that a model's requests are recorded to or replayed
/// from (see the [module documentation](self)).
///
/// Clones share the file and the position in it: several models given clones of one cassette
/// take their turns from the same sequence. Set [`ignore`](Self::ignore) and
/// [`scrub_header`](Self::scrub_header) before cloning or handing the cassette to a model.
#[derive(Clone)]
pub struct Cassette {
    path: Arc<Path>,
    mode: CassetteMode,
    config: Arc<Config>,
    state: Arc<Mutex<State>>,
}

/// How requests are compared and written.
#[derive(Clone, Debug, Default)]
struct Config {
    ignored: Vec<Pattern>,
    names: scrub::Names,
}

/// The position in the file and the lines waiting to be written.
struct State {
    path: Arc<Path>,
    /// What the file held when the cassette was opened (nothing in record mode).
    recorded: Vec<Interaction>,
    /// The place of the next request.
    next: usize,
    /// The places written (or, for a request that got no response, skipped) so far: the
    /// next line of the file is the recording of this place.
    written: usize,
    /// Finished recordings waiting for an earlier one (`None`: a request that got no
    /// response, which leaves no line).
    pending: BTreeMap<usize, Option<String>>,
    file: Option<File>,
    /// Whether the file is still to be emptied before the first line (record mode).
    empty_first: bool,
    /// The first error writing the file, reported at the next request.
    write_error: Option<std::io::Error>,
}

impl Cassette {
    /// Opens the cassette at `path` in `mode`. Replay needs the file (and reads it whole
    /// now); record creates it (and its folders), and empties an existing one when the
    /// first response is written; record-missing reads it when it exists.
    pub fn new(path: impl AsRef<Path>, mode: CassetteMode) -> Result<Cassette, CassetteError> {
        let path: Arc<Path> = Arc::from(path.as_ref());
        let io = |source| CassetteError::Io {
            path: path.to_path_buf(),
            source,
        };
        let exists = path.exists();
        let recorded = match mode {
            CassetteMode::Replay if !exists => {
                return Err(CassetteError::Missing {
                    path: path.to_path_buf(),
                });
            }
            CassetteMode::Replay => file::load(&path)?,
            CassetteMode::RecordMissing if exists => file::load(&path)?,
            CassetteMode::Record | CassetteMode::RecordMissing => Vec::new(),
        };
        let file = match mode {
            CassetteMode::Replay => None,
            CassetteMode::Record | CassetteMode::RecordMissing => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(io)?;
                }
                // Opened now to fail early when it cannot be written; a recording empties
                // it only when its first line is written, so that a run that fails before
                // any request (no key set, say) leaves the old recording alone.
                let file = OpenOptions::new()
                    .append(true)
                    .create(true)
                    .open(&path)
                    .map_err(io)?;
                Some(file)
            }
        };
        let written = recorded.len();
        Ok(Cassette {
            mode,
            config: Arc::new(Config::default()),
            state: Arc::new(Mutex::new(State {
                path: path.clone(),
                recorded,
                next: 0,
                written,
                pending: BTreeMap::new(),
                file,
                empty_first: mode == CassetteMode::Record,
                write_error: None,
            })),
            path,
        })
    }

    /// Opens `path` for replay.
    pub fn replay(path: impl AsRef<Path>) -> Result<Cassette, CassetteError> {
        Cassette::new(path, CassetteMode::Replay)
    }

    /// Opens `path` for recording, emptying it.
    pub fn record(path: impl AsRef<Path>) -> Result<Cassette, CassetteError> {
        Cassette::new(path, CassetteMode::Record)
    }

    /// Opens `path` to replay what it holds and append what comes after.
    pub fn record_missing(path: impl AsRef<Path>) -> Result<Cassette, CassetteError> {
        Cassette::new(path, CassetteMode::RecordMissing)
    }

    /// The cassette of a test: in the mode `AGENTRY_CASSETTES` names when it is set, else in
    /// replay mode. Replaying a file that does not exist is [`CassetteError::Missing`],
    /// whose message says how to record it (set the provider's key and
    /// `AGENTRY_CASSETTES=record`).
    ///
    /// A relative `path` is relative to the working directory, which `cargo test` sets to
    /// the package's root.
    pub fn for_test(path: impl AsRef<Path>) -> Result<Cassette, CassetteError> {
        let mode = CassetteMode::from_env()?.unwrap_or(CassetteMode::Replay);
        Cassette::new(path, mode)
    }

    /// Leaves a field of the request bodies out of the comparison in replay (an id or a
    /// timestamp that changes from run to run). `pointer` is a JSON Pointer (`/metadata/id`)
    /// in which a `*` segment stands for every element of an array or member of an object
    /// (`/messages/*/id`); `""` ignores the whole body. A pointer to a field a body does
    /// not have is no error.
    pub fn ignore(mut self, pointer: impl AsRef<str>) -> Self {
        Arc::make_mut(&mut self.config)
            .ignored
            .push(Pattern::parse(pointer.as_ref()));
        self
    }

    /// Writes the header `name` (in requests and responses) as `[scrubbed]`, and its value,
    /// wherever else it occurs in the line, too. The credential headers are scrubbed without
    /// asking (see the [module documentation](self)).
    pub fn scrub_header(mut self, name: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.config)
            .names
            .headers
            .push(name.into().to_ascii_lowercase());
        self
    }

    /// Writes the query parameter `name` as `[scrubbed]` (`key`, `api_key`, `apikey`,
    /// `access_token`, `token`, `sig` and `signature` are scrubbed without asking).
    pub fn scrub_query_param(mut self, name: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.config)
            .names
            .query
            .push(name.into());
        self
    }

    /// The mode.
    pub fn mode(&self) -> CassetteMode {
        self.mode
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many recorded interactions have not been replayed yet (a test can check that
    /// its code made every request the recording has).
    pub fn remaining(&self) -> usize {
        let state = self.lock();
        match self.mode {
            CassetteMode::Record => 0,
            _ => state.recorded.len().saturating_sub(state.next),
        }
    }

    /// Whether no request is ever sent: a model in this mode needs no key and may point at
    /// any host.
    pub(crate) fn replays_only(&self) -> bool {
        self.mode == CassetteMode::Replay
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves consistent data (each change is one step).
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl fmt::Debug for Cassette {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cassette")
            .field("path", &self.path)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

impl State {
    /// Files the line of request `index` (`None`: no line) and writes every line whose
    /// turn has come.
    fn finish(&mut self, index: usize, line: Option<String>) {
        self.pending.insert(index, line);
        while let Some(line) = self.pending.remove(&self.written) {
            self.write(line);
            self.written += 1;
        }
    }

    fn write(&mut self, line: Option<String>) {
        let (Some(line), Some(file)) = (line, self.file.as_mut()) else {
            return;
        };
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        let emptied = if self.empty_first {
            self.empty_first = false;
            file.set_len(0)
        } else {
            Ok(())
        };
        if let Err(err) = emptied.and_then(|()| file.write_all(&bytes)) {
            tracing::error!(path = %self.path.display(), error = %err, "could not write to the cassette");
            self.write_error.get_or_insert(err);
        }
    }
}

impl Drop for State {
    /// Writes the recordings still waiting for one that never finished, in order.
    fn drop(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for (_, line) in pending {
            self.write(line);
        }
    }
}
