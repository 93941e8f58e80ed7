//! [`StderrLog`]: a child server's stderr, read by a task that logs it, keeps its end for
//! error messages and signals its end of file.
//!
//! Each request marks where the stream stood when it began ([`StderrLog::begin_call`]), so a
//! dead server's message quotes what it wrote since the last call rather than whatever old
//! output is still kept; and the reader's end of file is a signal to wait on (bounded), not
//! a guess at how long draining takes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::watch;

/// How much of a child server's stderr is kept for error messages.
pub(super) const STDERR_TAIL: usize = 2048;

/// How long an error path waits for a dead server's stderr to reach its end of file.
pub(super) const EOF_WAIT: Duration = Duration::from_secs(1);

/// A point in the stream: how many bytes had been read when it was taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Mark(u64);

#[derive(Default)]
struct Tail {
    /// The last [`STDERR_TAIL`] bytes (at most) of what was read.
    text: String,
    /// Every byte read so far (of the lossily decoded text).
    read: u64,
}

/// The stderr of one child server process.
pub(super) struct StderrLog {
    tail: StdMutex<Tail>,
    last_call: AtomicU64,
    eof: watch::Sender<bool>,
}

impl StderrLog {
    /// Starts the task reading `stderr` (logged at debug under the server's name).
    pub(super) fn spawn(
        stderr: impl AsyncRead + Unpin + Send + 'static,
        server: String,
    ) -> Arc<Self> {
        let log = Arc::new(StderrLog {
            tail: StdMutex::new(Tail::default()),
            last_call: AtomicU64::new(0),
            eof: watch::Sender::new(false),
        });
        tokio::spawn(log.clone().read(stderr, server));
        log
    }

    /// Reads in chunks (a line may be of any length) until the end of file, then signals it.
    async fn read(self: Arc<Self>, mut stderr: impl AsyncRead + Unpin, server: String) {
        let mut buf = [0u8; 1024];
        while let Ok(n) = stderr.read(&mut buf).await {
            if n == 0 {
                break;
            }
            let chunk = String::from_utf8_lossy(&buf[..n]);
            tracing::debug!(server = %server, stderr = %chunk.trim_end());
            self.push(&chunk);
        }
        self.eof.send_replace(true);
    }

    fn push(&self, chunk: &str) {
        let mut tail = self.tail.lock().unwrap_or_else(|e| e.into_inner());
        tail.text.push_str(chunk);
        tail.read += chunk.len() as u64;
        if tail.text.len() > STDERR_TAIL {
            let mut cut = tail.text.len() - STDERR_TAIL;
            while !tail.text.is_char_boundary(cut) {
                cut += 1;
            }
            tail.text.drain(..cut);
        }
    }

    /// Where the stream stands now.
    pub(super) fn mark(&self) -> Mark {
        Mark(self.tail.lock().unwrap_or_else(|e| e.into_inner()).read)
    }

    /// Marks the start of a request: [`StderrLog::since_last_call`] quotes from here.
    pub(super) fn begin_call(&self) -> Mark {
        let mark = self.mark();
        self.last_call.store(mark.0, Ordering::SeqCst);
        mark
    }

    /// What was written since the latest [`StderrLog::begin_call`] (or since the start).
    pub(super) fn since_last_call(&self) -> String {
        self.since(Mark(self.last_call.load(Ordering::SeqCst)))
    }

    /// What was written after `mark`, trimmed: whole lines, at most [`STDERR_TAIL`] bytes
    /// (when more was written, the oldest lines are left out).
    pub(super) fn since(&self, mark: Mark) -> String {
        let tail = self.tail.lock().unwrap_or_else(|e| e.into_inner());
        let new = tail.read.saturating_sub(mark.0);
        let kept = tail.text.len() as u64;
        let text = if new < kept {
            let mut start = (kept - new) as usize;
            while !tail.text.is_char_boundary(start) {
                start += 1;
            }
            &tail.text[start..]
        } else if tail.read > kept {
            // Part of what was written after the mark is gone: start at a whole line.
            match tail.text.find('\n') {
                Some(newline) => &tail.text[newline + 1..],
                None => &tail.text[..],
            }
        } else {
            &tail.text[..]
        };
        text.trim().to_string()
    }

    /// Waits until the reader reached the end of file (the process closed its stderr, in
    /// practice by exiting), for at most `within`. Whether it did.
    pub(super) async fn wait_eof(&self, within: Duration) -> bool {
        let mut eof = self.eof.subscribe();
        matches!(
            tokio::time::timeout(within, eof.wait_for(|done| *done)).await,
            Ok(Ok(_))
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log() -> StderrLog {
        StderrLog {
            tail: StdMutex::new(Tail::default()),
            last_call: AtomicU64::new(0),
            eof: watch::Sender::new(false),
        }
    }

    #[test]
    fn only_what_was_written_since_the_last_call_is_quoted() {
        let log = log();
        for i in 0..40 {
            log.push(&format!("startup noise line {i}\n"));
        }
        log.begin_call();
        assert_eq!(log.since_last_call(), "");
        log.push("Traceback: boom\n");
        log.push("ValueError: bad input\n");
        assert_eq!(
            log.since_last_call(),
            "Traceback: boom\nValueError: bad input"
        );
    }

    #[test]
    fn more_than_the_tail_since_the_mark_starts_at_a_whole_line() {
        let log = log();
        let mark = log.begin_call();
        for i in 0..200 {
            log.push(&format!("line {i:03} of the crash report\n"));
        }
        let quoted = log.since(mark);
        assert!(quoted.len() <= STDERR_TAIL, "{}", quoted.len());
        assert!(quoted.starts_with("line "), "{quoted}");
        assert!(quoted.ends_with("line 199 of the crash report"), "{quoted}");
    }

    #[tokio::test]
    async fn waiting_ends_at_the_end_of_file_not_after_a_guess() {
        // The message comes 300 ms after the start, longer than the sleep this replaced.
        let mut child = tokio::process::Command::new("sh")
            .args(["-c", "sleep 0.3; echo 'fatal: no config' >&2"])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("sh starts");
        let log = StderrLog::spawn(child.stderr.take().unwrap(), "sh".to_string());
        assert!(log.wait_eof(Duration::from_secs(10)).await);
        assert_eq!(log.since(Mark::default()), "fatal: no config");
        child.wait().await.unwrap();
    }

    #[tokio::test]
    async fn waiting_is_bounded_while_the_stream_stays_open() {
        let (_writer, reader) = tokio::io::duplex(64);
        let log = StderrLog::spawn(reader, "open".to_string());
        assert!(!log.wait_eof(Duration::from_millis(50)).await);
    }
}
