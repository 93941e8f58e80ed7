//! The command line: the parent's optional `N` and `C` (and environment variables), and the
//! flags the parent passes to its child processes.

use std::fmt;

use crate::measure::Plan;

/// Sequential runs per mode by default.
pub const DEFAULT_SEQUENTIAL: u64 = 500;
/// Concurrent runs per mode by default.
pub const DEFAULT_CONCURRENT: u64 = 200;
/// Rounds (one client process per mode per round) by default.
pub const DEFAULT_ROUNDS: u64 = 11;
/// Sequential warm-up runs by default.
pub const DEFAULT_WARMUP: u64 = 20;

/// The usage text.
pub const USAGE: &str = "\
usage: overhead [N] [C] [--rounds R] [--warmup W]
       cargo bench --bench overhead -- [N] [C] [--rounds R] [--warmup W]

  N           sequential runs per mode (default 500; env OVERHEAD_N)
  C           concurrent runs per mode, all spawned at once (default 200; env OVERHEAD_C)
  --rounds R  client processes per mode, alternating the order; medians are reported
              (default 11; env OVERHEAD_ROUNDS)
  --warmup W  sequential warm-up runs before measuring, followed by one burst of C
              (default 20; env OVERHEAD_WARMUP)";

/// Which client a child process runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The hand-written reqwest + serde_json client.
    Baseline,
    /// The SDK's `#[agent]`.
    Sdk,
}

impl Mode {
    /// The name used on the command line and in the table.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Baseline => "baseline",
            Mode::Sdk => "sdk",
        }
    }

    fn parse(s: &str) -> Result<Mode, ArgsError> {
        match s {
            "baseline" => Ok(Mode::Baseline),
            "sdk" => Ok(Mode::Sdk),
            other => Err(ArgsError(format!(
                "unknown client mode `{other}`: expected `sdk` or `baseline`"
            ))),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// What the parent was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Sequential runs per mode.
    pub sequential: u64,
    /// Concurrent runs per mode.
    pub concurrent: u64,
    /// Rounds.
    pub rounds: u64,
    /// Sequential warm-up runs.
    pub warmup: u64,
}

impl Settings {
    /// What each client process runs.
    pub fn plan(&self) -> Plan {
        Plan {
            sequential: self.sequential,
            concurrent: self.concurrent,
            warmup: self.warmup,
        }
    }
}

/// What this process does.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Print the usage.
    Help,
    /// Run the benchmark: start the server and the clients, print the table.
    Parent(Settings),
    /// Serve the mock model.
    Serve,
    /// Run one client against `url`.
    Client {
        /// Which client.
        mode: Mode,
        /// The server's base URL.
        url: String,
        /// How much to run.
        plan: Plan,
    },
}

/// A command-line mistake, with a message saying what was expected.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ArgsError(String);

/// Parses the arguments (without the program name); `env` looks up environment variables.
pub fn parse(
    args: impl IntoIterator<Item = String>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Command, ArgsError> {
    let mut args = args.into_iter().peekable();
    match args.peek().map(String::as_str) {
        Some("--serve") => return Ok(Command::Serve),
        Some("--client") => {
            args.next();
            return parse_client(args);
        }
        _ => {}
    }
    let from_env = |name: &str, default: u64| -> Result<u64, ArgsError> {
        match env(name) {
            Some(v) if !v.trim().is_empty() => count(name, &v),
            _ => Ok(default),
        }
    };
    let mut settings = Settings {
        sequential: from_env("OVERHEAD_N", DEFAULT_SEQUENTIAL)?,
        concurrent: from_env("OVERHEAD_C", DEFAULT_CONCURRENT)?,
        rounds: from_env("OVERHEAD_ROUNDS", DEFAULT_ROUNDS)?,
        warmup: from_env("OVERHEAD_WARMUP", DEFAULT_WARMUP)?,
    };
    let mut positional = 0;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            // `cargo bench` passes `--bench` to every bench binary.
            "--bench" => {}
            "-h" | "--help" => return Ok(Command::Help),
            "--rounds" => settings.rounds = count("--rounds", &value(&mut args, "--rounds")?)?,
            "--warmup" => settings.warmup = count("--warmup", &value(&mut args, "--warmup")?)?,
            flag if flag.starts_with('-') => {
                return Err(ArgsError(format!("unknown option `{flag}`")));
            }
            n if positional == 0 => {
                settings.sequential = count("N", n)?;
                positional += 1;
            }
            c if positional == 1 => {
                settings.concurrent = count("C", c)?;
                positional += 1;
            }
            extra => return Err(ArgsError(format!("unexpected argument `{extra}`"))),
        }
    }
    if settings.sequential == 0 || settings.concurrent == 0 || settings.rounds == 0 {
        return Err(ArgsError(
            "N, C and the rounds must each be at least 1".to_owned(),
        ));
    }
    Ok(Command::Parent(settings))
}

fn parse_client(args: impl Iterator<Item = String>) -> Result<Command, ArgsError> {
    let mut args = args.peekable();
    let mode = Mode::parse(&value(&mut args, "--client")?)?;
    let (mut url, mut sequential, mut concurrent, mut warmup) = (None, None, None, None);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--url" => url = Some(value(&mut args, "--url")?),
            "--runs" => sequential = Some(count("--runs", &value(&mut args, "--runs")?)?),
            "--concurrent" => {
                concurrent = Some(count("--concurrent", &value(&mut args, "--concurrent")?)?)
            }
            "--warmup" => warmup = Some(count("--warmup", &value(&mut args, "--warmup")?)?),
            other => return Err(ArgsError(format!("unknown client option `{other}`"))),
        }
    }
    let missing = |name: &str| ArgsError(format!("the client needs {name}"));
    Ok(Command::Client {
        mode,
        url: url.ok_or_else(|| missing("--url"))?,
        plan: Plan {
            sequential: sequential.ok_or_else(|| missing("--runs"))?,
            concurrent: concurrent.ok_or_else(|| missing("--concurrent"))?,
            warmup: warmup.unwrap_or(DEFAULT_WARMUP),
        },
    })
}

fn value(args: &mut impl Iterator<Item = String>, flag: &str) -> Result<String, ArgsError> {
    args.next()
        .ok_or_else(|| ArgsError(format!("`{flag}` needs a value")))
}

fn count(name: &str, text: &str) -> Result<u64, ArgsError> {
    text.trim().parse().map_err(|_| {
        ArgsError(format!(
            "{name} must be a whole number of runs, got `{text}`"
        ))
    })
}
