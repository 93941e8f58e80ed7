//! The command line: the parent's mode flag, optional `N` and `C` (and environment variables),
//! and the flags the parent passes to its child processes.

use std::fmt;

use crate::measure::{Phases, Plan};

/// The usage text.
pub const USAGE: &str = "\
usage: overhead [--instructions | --cache | --history | --cold | --memory] [N] [C] [--rounds R] [--warmup W]
       cargo bench --bench overhead -- [flags as above]
       overhead --self-test

  (no mode)       CPU and wall clock, all four modes: sequential / concurrent x plain /
                  streaming, each client in its own process, paired rounds
                  (defaults N=500 C=200 R=31 W=20)
  --instructions  instructions per run under callgrind (valgrind), all four modes, each phase
                  measured as (I(2N) - I(N)) / N to cancel start-up (defaults N=200 C=100 R=7 W=10)
  --cache         L1 instruction and data cache misses and mispredicted branches per run,
                  cachegrind's simulation (valgrind), all four modes, differenced the same way
                  (defaults N=200 C=100 R=1 W=10)
  --history       instructions per run of a continued conversation of 10, 100 and 1000 prior
                  messages, sequential plain, callgrind, whole and inside the function that
                  builds the request body (defaults N=50 R=3 W=5)
  --cold          process launch -> first answer, wall clock, R paired rounds (default R=21)
  --memory        peak RSS (VmHWM) of a client process doing only sequential runs (after W
                  sequential warm-up runs) and of one doing only bursts of C concurrent runs,
                  plain and streaming, R rounds (defaults N=500 C=200 R=5 W=20)
  --self-test     check the argument and callgrind-output parsers, then exit

  N           sequential runs per mode (env OVERHEAD_N)
  C           concurrent runs per mode, all spawned at once (env OVERHEAD_C)
  --rounds R  client processes per mode, alternating the order; medians are reported
              (env OVERHEAD_ROUNDS)
  --warmup W  sequential warm-up runs before measuring, followed by one burst of C
              (env OVERHEAD_WARMUP)";

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

/// What the parent measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// CPU time, wall clock and peak RSS of the four modes.
    Wall,
    /// Instructions per run (callgrind) of the four modes.
    Instructions,
    /// Cache misses and mispredicted branches per run (cachegrind) of the four modes.
    Cache,
    /// Instructions per run against the length of a continued conversation.
    History,
    /// Process launch to first answer.
    Cold,
    /// Peak RSS of sequential-only and concurrent-only client processes.
    Memory,
}

impl Kind {
    /// Default (N, C, rounds, warm-up).
    fn defaults(self) -> [u64; 4] {
        match self {
            Kind::Wall => [500, 200, 31, 20],
            Kind::Instructions => [200, 100, 7, 10],
            Kind::Cache => [200, 100, 1, 10],
            Kind::History => [50, 1, 3, 5],
            Kind::Cold => [1, 1, 21, 0],
            Kind::Memory => [500, 200, 5, 20],
        }
    }
}

/// What the parent was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// What is measured.
    pub kind: Kind,
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
    /// What each client process runs in the default mode.
    pub fn plan(&self) -> Plan {
        Plan {
            sequential: self.sequential,
            concurrent: self.concurrent,
            warmup: self.warmup,
            phases: Phases::Both,
            bursts: 1,
        }
    }
}

/// A client child's options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientArgs {
    /// Which client.
    pub mode: Mode,
    /// The server's base URL.
    pub url: String,
    /// How much to run.
    pub plan: Plan,
    /// Stream the model's answers (SSE).
    pub stream: bool,
    /// Continue a conversation of this many prior messages (sequential, plain).
    pub history: Option<usize>,
    /// Build the client, do one run, exit.
    pub cold: bool,
}

/// What this process does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Print the usage.
    Help,
    /// Check the parsers.
    SelfTest,
    /// Run the benchmark: start the server and the clients, print the table.
    Parent(Settings),
    /// Serve the mock model.
    Serve,
    /// Run one client.
    Client(ClientArgs),
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
        Some("--self-test") => return Ok(Command::SelfTest),
        Some("--client") => {
            args.next();
            return parse_client(args);
        }
        _ => {}
    }
    let mut kind = None;
    let (mut rounds, mut warmup) = (None, None);
    let mut positional = Vec::new();
    while let Some(arg) = args.next() {
        let mut set_kind = |k: Kind| match kind.replace(k) {
            Some(old) if old != k => Err(ArgsError(
                "choose one of --instructions, --cache, --history, --cold and --memory".to_owned(),
            )),
            _ => Ok(()),
        };
        match arg.as_str() {
            // `cargo bench` passes `--bench` to every bench binary.
            "--bench" => {}
            "-h" | "--help" => return Ok(Command::Help),
            "--instructions" => set_kind(Kind::Instructions)?,
            "--cache" => set_kind(Kind::Cache)?,
            "--history" => set_kind(Kind::History)?,
            "--cold" => set_kind(Kind::Cold)?,
            "--memory" => set_kind(Kind::Memory)?,
            "--rounds" => rounds = Some(count("--rounds", &value(&mut args, "--rounds")?)?),
            "--warmup" => warmup = Some(count("--warmup", &value(&mut args, "--warmup")?)?),
            flag if flag.starts_with('-') => {
                return Err(ArgsError(format!("unknown option `{flag}`")));
            }
            n if positional.len() < 2 => {
                positional.push(count(if positional.is_empty() { "N" } else { "C" }, n)?)
            }
            extra => return Err(ArgsError(format!("unexpected argument `{extra}`"))),
        }
    }
    let kind = kind.unwrap_or(Kind::Wall);
    let [n, c, r, w] = kind.defaults();
    let pick = |given: Option<u64>, name: &str, default: u64| -> Result<u64, ArgsError> {
        match (given, env(name)) {
            (Some(v), _) => Ok(v),
            (None, Some(v)) if !v.trim().is_empty() => count(name, &v),
            _ => Ok(default),
        }
    };
    let settings = Settings {
        kind,
        sequential: pick(positional.first().copied(), "OVERHEAD_N", n)?,
        concurrent: pick(positional.get(1).copied(), "OVERHEAD_C", c)?,
        rounds: pick(rounds, "OVERHEAD_ROUNDS", r)?,
        warmup: pick(warmup, "OVERHEAD_WARMUP", w)?,
    };
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
    let (mut url, mut sequential, mut concurrent) = (None, None, None);
    let (mut stream, mut cold, mut history) = (false, false, None);
    let mut plan = Plan {
        sequential: 0,
        concurrent: 0,
        warmup: Kind::Wall.defaults()[3],
        phases: Phases::Both,
        bursts: 1,
    };
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--url" => url = Some(value(&mut args, "--url")?),
            "--runs" => sequential = Some(count("--runs", &value(&mut args, "--runs")?)?),
            "--concurrent" => {
                concurrent = Some(count("--concurrent", &value(&mut args, "--concurrent")?)?)
            }
            "--warmup" => plan.warmup = count("--warmup", &value(&mut args, "--warmup")?)?,
            "--bursts" => plan.bursts = count("--bursts", &value(&mut args, "--bursts")?)?,
            "--phase" => {
                plan.phases = match value(&mut args, "--phase")?.as_str() {
                    "seq" => Phases::Sequential,
                    "conc" => Phases::Concurrent,
                    other => {
                        return Err(ArgsError(format!(
                            "unknown phase `{other}`: expected `seq` or `conc`"
                        )));
                    }
                }
            }
            "--history" => {
                history = Some(count("--history", &value(&mut args, "--history")?)? as usize)
            }
            "--stream" => stream = true,
            "--cold" => cold = true,
            other => return Err(ArgsError(format!("unknown client option `{other}`"))),
        }
    }
    let missing = |name: &str| ArgsError(format!("the client needs {name}"));
    let url = url.ok_or_else(|| missing("--url"))?;
    if !cold {
        plan.sequential = sequential.ok_or_else(|| missing("--runs"))?;
        plan.concurrent = concurrent.ok_or_else(|| missing("--concurrent"))?;
    }
    if history.is_some() && (stream || plan.phases == Phases::Concurrent) {
        return Err(ArgsError(
            "--history runs sequential plain runs only".to_owned(),
        ));
    }
    Ok(Command::Client(ClientArgs {
        mode,
        url,
        plan,
        stream,
        history,
        cold,
    }))
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
