//! `--self-test`: checks of the argument parser and the callgrind-output parser. The bench is
//! built with `harness = false`, so `#[test]` functions in it would never run; these run with
//! `cargo bench --bench overhead -- --self-test` instead (and fail the process on a mismatch).

use crate::args::{self, ClientArgs, Command, Kind, Mode, Settings};
use crate::cache::parse_columns;
use crate::callgrind::{parse_inclusive, parse_total};
use crate::child::{self, Flags};
use crate::measure::{Phases, Plan};
use crate::memory::at_equal_connections;

fn parse(args: &[&str], env: &[(&str, &str)]) -> Result<Command, args::ArgsError> {
    args::parse(args.iter().map(|s| s.to_string()), |name| {
        env.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())
    })
}

fn parent(kind: Kind, [sequential, concurrent, rounds, warmup]: [u64; 4]) -> Command {
    Command::Parent(Settings {
        kind,
        sequential,
        concurrent,
        rounds,
        warmup,
    })
}

/// Runs the checks; the failures, if any.
pub fn run() -> Result<(), String> {
    let mut failures = Vec::new();
    let mut total = 0;
    let mut check = |name: &str, ok: bool| {
        total += 1;
        if !ok {
            failures.push(name.to_owned());
        }
    };

    // The parent.
    check(
        "no flags: the wall mode with its defaults",
        parse(&[], &[]) == Ok(parent(Kind::Wall, [500, 200, 31, 20])),
    );
    check(
        "--bench is ignored",
        parse(&["--bench"], &[]) == Ok(parent(Kind::Wall, [500, 200, 31, 20])),
    );
    check(
        "N and C",
        parse(&["--bench", "30", "40"], &[]) == Ok(parent(Kind::Wall, [30, 40, 31, 20])),
    );
    check(
        "--instructions defaults",
        parse(&["--instructions"], &[]) == Ok(parent(Kind::Instructions, [200, 100, 7, 10])),
    );
    check(
        "--cache defaults",
        parse(&["--cache"], &[]) == Ok(parent(Kind::Cache, [200, 100, 1, 10])),
    );
    check(
        "--cache and --instructions",
        parse(&["--cache", "--instructions"], &[]).is_err(),
    );
    check(
        "--history with N",
        parse(&["--history", "20"], &[]) == Ok(parent(Kind::History, [20, 1, 3, 5])),
    );
    check(
        "--cold --rounds",
        parse(&["--cold", "--rounds", "5"], &[]) == Ok(parent(Kind::Cold, [1, 1, 5, 0])),
    );
    check(
        "--memory",
        parse(&["--memory"], &[]) == Ok(parent(Kind::Memory, [500, 200, 5, 20])),
    );
    check(
        "--warmup",
        parse(&["--warmup", "3", "--instructions"], &[])
            == Ok(parent(Kind::Instructions, [200, 100, 7, 3])),
    );
    check(
        "the environment",
        parse(&[], &[("OVERHEAD_N", "7"), ("OVERHEAD_ROUNDS", " ")])
            == Ok(parent(Kind::Wall, [7, 200, 31, 20])),
    );
    check(
        "arguments win over the environment",
        parse(&["9"], &[("OVERHEAD_N", "7")]) == Ok(parent(Kind::Wall, [9, 200, 31, 20])),
    );
    check("two modes", parse(&["--cold", "--history"], &[]).is_err());
    check(
        "the same mode twice",
        parse(&["--cold", "--cold"], &[]).is_ok(),
    );
    check("N = 0", parse(&["0"], &[]).is_err());
    check("not a number", parse(&["x"], &[]).is_err());
    check("a third number", parse(&["1", "2", "3"], &[]).is_err());
    check("an unknown flag", parse(&["--bogus"], &[]).is_err());
    check(
        "--rounds without a value",
        parse(&["--rounds"], &[]).is_err(),
    );
    check("--help", parse(&["--help"], &[]) == Ok(Command::Help));
    check("--serve", parse(&["--serve"], &[]) == Ok(Command::Serve));

    // The client.
    let plan = Plan {
        sequential: 3,
        concurrent: 4,
        warmup: 20,
        phases: Phases::Concurrent,
        bursts: 2,
    };
    let client = |plan: Plan, stream, history, cold| -> Result<Command, args::ArgsError> {
        Ok(Command::Client(ClientArgs {
            mode: Mode::Sdk,
            url: "u".to_owned(),
            plan,
            stream,
            history,
            cold,
        }))
    };
    check(
        "a streaming client, one phase",
        parse(
            &[
                "--client",
                "sdk",
                "--url",
                "u",
                "--runs",
                "3",
                "--concurrent",
                "4",
                "--stream",
                "--phase",
                "conc",
                "--bursts",
                "2",
            ],
            &[],
        ) == client(plan, true, None, false),
    );
    let cold = Plan {
        sequential: 0,
        concurrent: 0,
        phases: Phases::Both,
        bursts: 1,
        ..plan
    };
    check(
        "a cold client needs no counts",
        parse(&["--client", "sdk", "--url", "u", "--cold"], &[]) == client(cold, false, None, true),
    );
    check(
        "a client without --url",
        parse(
            &["--client", "sdk", "--runs", "1", "--concurrent", "1"],
            &[],
        )
        .is_err(),
    );
    check(
        "a client without --runs",
        parse(&["--client", "sdk", "--url", "u", "--concurrent", "1"], &[]).is_err(),
    );
    check(
        "an unknown client",
        parse(&["--client", "rig", "--url", "u"], &[]).is_err(),
    );
    check(
        "an unknown phase",
        parse(
            &[
                "--client",
                "sdk",
                "--url",
                "u",
                "--runs",
                "1",
                "--concurrent",
                "1",
                "--phase",
                "both",
            ],
            &[],
        )
        .is_err(),
    );
    check(
        "a streamed history",
        parse(
            &[
                "--client",
                "sdk",
                "--url",
                "u",
                "--runs",
                "1",
                "--concurrent",
                "0",
                "--history",
                "10",
                "--stream",
            ],
            &[],
        )
        .is_err(),
    );
    for (plan, flags) in [
        (
            plan,
            Flags {
                stream: true,
                ..Flags::default()
            },
        ),
        (
            Plan {
                phases: Phases::Sequential,
                ..plan
            },
            Flags {
                history: Some(1000),
                ..Flags::default()
            },
        ),
        (
            Plan {
                phases: Phases::Both,
                bursts: 1,
                ..plan
            },
            Flags::default(),
        ),
        (
            cold,
            Flags {
                cold: true,
                ..Flags::default()
            },
        ),
    ] {
        let line = child::client_args("u", Mode::Sdk, &plan, flags);
        let back = args::parse(line.clone(), |_| None);
        check(
            &format!("the parent's client flags parse back: {line:?}"),
            back == client(plan, flags.stream, flags.history, flags.cold),
        );
    }

    // Cachegrind output.
    let cachegrind = "desc: I1 cache: 32768 B\ncmd: x\n\
        events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n\
        fl=a.rs\nfn=main\n1 9 9 9 9 9 9 9 9 9 9 9 9 9\n\
        summary: 1000 20 1 300 7 1 200 5 1 90 11 10 3\n";
    check(
        "cachegrind: the columns from the summary, by event name",
        parse_columns(cachegrind) == Some([1000, 20, 12, 14]),
    );
    check(
        "cachegrind: no branch events (run without --branch-sim)",
        parse_columns("events: Ir I1mr D1mr D1mw\nsummary: 1 2 3 4\n").is_none(),
    );
    check(
        "cachegrind: a summary shorter than the events",
        parse_columns("events: Ir I1mr D1mr D1mw Bcm Bim\nsummary: 1 2 3\n").is_none(),
    );

    // Callgrind output.
    let file = "# callgrind format\nversion: 1\ncreator: callgrind-3.22.0\ncmd: overhead --client sdk\n\
                events: Ir\n\nfn=(1) main\n0 12\n\nsummary: 123456\n\n\ntotals: 123457\n";
    check("callgrind: totals first", parse_total(file) == Some(123457));
    check(
        "callgrind: summary alone",
        parse_total("events: Ir\nsummary: 98765 \n") == Some(98765),
    );
    check(
        "callgrind: several events",
        parse_total("events: Ir Dr\ntotals: 10 20\n") == Some(10),
    );
    check(
        "callgrind: no total",
        parse_total("events: Ir\nfn=main\n0 5\n").is_none(),
    );
    let annotated = "--------\nIr\n--------\n\
                     3,054,873 (100.0%)  PROGRAM TOTALS\n\
                     2,934,024 (96.04%)  ???:<agentry::providers::openai::ChatCompletions as agentry::providers::driver::WireFormat>::body [/x/overhead]\n\
                     2,492,498 (81.59%)  ???:serde_json::ser::format_escaped_str [/x/overhead]\n";
    check(
        "callgrind_annotate: inclusive count by name",
        parse_inclusive(
            annotated,
            "as agentry::providers::driver::WireFormat>::body",
        ) == Some(2_934_024),
    );
    check(
        "callgrind_annotate: a missing function",
        parse_inclusive(annotated, "RequestBuilder::json").is_none(),
    );
    check(
        "callgrind: not a number",
        parse_total("summary: lots\n").is_none(),
    );

    // The memory table's excess at an equal number of connections: each side's peak grows
    // 0.1 MiB a connection; at 100 connections the SDK holds 2 MiB more.
    let (base_peaks, base_conns) = (vec![10.0, 11.0, 12.0], vec![100.0, 110.0, 120.0]);
    let (sdk_peaks, sdk_conns) = (vec![12.0, 13.0], vec![100.0, 110.0]);
    let same = at_equal_connections([(&base_peaks, &base_conns), (&sdk_peaks, &sdk_conns)]);
    check(
        "memory: the excess at equal connections",
        same.is_some_and(|d| (d - 2.0).abs() < 1e-9),
    );
    let fixed = vec![5.0, 5.0];
    check(
        "memory: no slope when no count varies",
        at_equal_connections([(&base_peaks[..2].to_vec(), &fixed), (&sdk_peaks, &fixed)]).is_none(),
    );

    if failures.is_empty() {
        println!("self-test: {total} checks passed");
        Ok(())
    } else {
        Err(format!(
            "self-test: {} of {total} checks failed:\n  {}",
            failures.len(),
            failures.join("\n  ")
        ))
    }
}
