//! What can go wrong with a cassette.

use std::path::PathBuf;

/// A cassette that cannot be opened, read or written, or a request that does not match its
/// recording. Inside a model call it becomes a
/// [`ModelError::Configuration`](crate::model::ModelError::Configuration) with this text.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CassetteError {
    /// Replay was asked for and there is no file to replay.
    #[error(
        "no cassette at {}: record it once by running this test with the provider's API key set and {}=record",
        path.display(),
        super::MODE_ENV
    )]
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// `AGENTRY_CASSETTES` holds something other than a mode.
    #[error(
        "{}={value:?} is not a cassette mode: use replay, record or record_missing",
        super::MODE_ENV
    )]
    BadMode {
        /// The variable's value.
        value: String,
    },
    /// The file could not be read, created or written.
    #[error("cassette {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A line of the file is not a recorded interaction.
    #[error("cassette {}, line {line}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A request differs from the one recorded at its place.
    #[error(
        "cassette {}: request {index} differs from the recording (re-record with {}=record if the change is intended)\n{diff}",
        path.display(),
        super::MODE_ENV
    )]
    Drift {
        /// The file.
        path: PathBuf,
        /// The request's place in the cassette, from 0.
        index: usize,
        /// A unified diff, recorded (`-`) against sent (`+`).
        diff: String,
    },
    /// More requests were made than were recorded.
    #[error(
        "cassette {}: request {index} was not recorded (the cassette holds {recorded}); re-record with {}=record, or use {}=record_missing to append",
        path.display(),
        super::MODE_ENV,
        super::MODE_ENV
    )]
    Exhausted {
        /// The file.
        path: PathBuf,
        /// The request's place, from 0.
        index: usize,
        /// How many interactions the file holds.
        recorded: usize,
    },
}
