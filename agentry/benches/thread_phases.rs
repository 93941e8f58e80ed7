//! Where a cached `thread.run` spends its time on Postgres (and SQLite, for comparison), at 10
//! and 5,000 messages: the checkpointer's calls timed from the client (a wrapper around the
//! checkpointer), each SQL statement as sqlx times it (from sending it to the last row read,
//! taken from its `sqlx::query` events), the request body the model serializes, and the rest
//! of the run. The thread sizes alternate round by round (a fresh fork of a template thread,
//! its first run untimed, then `RUNS` timed runs), so load from other processes hits both
//! alike; the figures are medians per run over all rounds.
//!
//! It is the probe behind the thread-cost guide's "the rest of the Postgres gap" (the
//! `thread_cost` bench gives the ratios; this one says where the difference goes).
//!
//! Run: `cargo bench -p agentry --features testing,sqlite,postgres --bench thread_phases`
//! (`PHASES_ROUNDS=n` rounds, default 12; `PHASES_SETTLE=1` vacuums and checkpoints Postgres
//! after each fork's untimed run, as `thread_cost`'s `_settled` series does;
//! `PHASES_PG_SETTINGS=a=b,c=d` passes server settings, e.g. `auto_explain`'s;
//! `PHASES_BACKEND=postgres` or `sqlite` measures one backend; `PHASES_BODY=reuse`
//! serializes the request body into one buffer kept across runs, `PHASES_BODY=fixed` only
//! the first 12 messages: the control, a run whose body does not grow with the thread;
//! `spin` and `touch` add to `fixed`, on the long thread, 1.25 ms of spinning or writing a
//! 1.3 MB buffer: the body's CPU time and its memory traffic, one at a time).

mod support;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use agentry::Message;
use agentry::agent::{Agent, AgentBuilder, NoTools};
use agentry::model::ChatRequest;
use agentry::output::TextOutput;
use agentry::persist::{
    Checkpoint, CheckpointMeta, CheckpointRef, CheckpointWrite, Checkpointer, Lease, PersistError,
    PostgresCheckpointer, SqliteCheckpointer, ThreadInfo,
};
use agentry::testing::{FunctionModel, PostgresServer};
use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::json;
use support::thread::message;
use tracing::field::{Field, Visit};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};

const RUNS: usize = 20;
const SIZES: [usize; 2] = [10, 5000];

type Bench = Agent<NoTools, TextOutput, (), ()>;

/// Time per phase of the current run (nanoseconds), keyed by phase name.
#[derive(Default)]
struct Phases {
    on: AtomicBool,
    current: Mutex<BTreeMap<String, u64>>,
    /// Checkpoints written in the current run so far.
    puts: AtomicU64,
}

impl Phases {
    fn add(&self, phase: &str, d: Duration) {
        if !self.on.load(Ordering::Relaxed) {
            return;
        }
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        *self
            .current
            .lock()
            .unwrap()
            .entry(phase.to_string())
            .or_default() += ns;
    }

    fn take(&self) -> BTreeMap<String, u64> {
        self.puts.store(0, Ordering::Relaxed);
        std::mem::take(&mut *self.current.lock().unwrap())
    }
}

static PHASES: std::sync::LazyLock<Phases> = std::sync::LazyLock::new(Phases::default);

/// Collects the elapsed time of each `sqlx::query` event, by the statement's first words.
struct SqlTimes;

#[derive(Default)]
struct SqlEvent {
    summary: String,
    elapsed: f64,
}

impl Visit for SqlEvent {
    fn record_f64(&mut self, field: &Field, value: f64) {
        if field.name() == "elapsed_secs" {
            self.elapsed = value;
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "summary" {
            self.summary = value.to_string();
        }
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "summary" {
            self.summary = format!("{value:?}");
        }
    }
}

impl<S: tracing::Subscriber> Layer<S> for SqlTimes {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target() != "sqlx::query" {
            return;
        }
        let mut e = SqlEvent::default();
        event.record(&mut e);
        let words: Vec<&str> = e
            .summary
            .trim_matches('"')
            .split_whitespace()
            .take(4)
            .collect();
        PHASES.add(
            &format!("sql: {}", words.join(" ")),
            Duration::from_secs_f64(e.elapsed),
        );
    }
}

/// A checkpointer that times each call it passes on.
struct Timed(Arc<dyn Checkpointer>);

async fn timed<T>(phase: &str, f: impl Future<Output = T>) -> T {
    let start = Instant::now();
    let out = f.await;
    PHASES.add(phase, start.elapsed());
    out
}

impl Checkpointer for Timed {
    fn put<'a>(
        &'a self,
        write: CheckpointWrite<'a>,
    ) -> BoxFuture<'a, Result<CheckpointMeta, PersistError>> {
        let nth = PHASES.puts.fetch_add(1, Ordering::Relaxed) + 1;
        async move {
            let start = Instant::now();
            let out = self.0.put(write).await;
            PHASES.add("cp: put", start.elapsed());
            PHASES.add(&format!("cp: put (#{nth} of the run)"), start.elapsed());
            out
        }
        .boxed()
    }
    fn latest<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>, PersistError>> {
        timed("cp: latest", self.0.latest(thread_id)).boxed()
    }
    fn get<'a>(
        &'a self,
        thread_id: &'a str,
        step: u64,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>, PersistError>> {
        timed("cp: get", self.0.get(thread_id, step)).boxed()
    }
    fn history<'a>(
        &'a self,
        thread_id: &'a str,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<CheckpointMeta>, PersistError>> {
        timed("cp: history", self.0.history(thread_id, limit)).boxed()
    }
    fn threads<'a>(&'a self, limit: usize) -> BoxFuture<'a, Result<Vec<ThreadInfo>, PersistError>> {
        self.0.threads(limit)
    }
    fn delete_thread<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<bool, PersistError>> {
        self.0.delete_thread(thread_id)
    }
    fn fork<'a>(
        &'a self,
        from: &'a CheckpointRef,
        new_thread_id: &'a str,
    ) -> BoxFuture<'a, Result<CheckpointMeta, PersistError>> {
        self.0.fork(from, new_thread_id)
    }
    fn acquire_lease<'a>(
        &'a self,
        thread_id: &'a str,
        worker: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<Lease>, PersistError>> {
        timed(
            "cp: acquire_lease",
            self.0.acquire_lease(thread_id, worker, ttl),
        )
        .boxed()
    }
    fn renew_lease<'a>(
        &'a self,
        lease: &'a Lease,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Lease, PersistError>> {
        timed("cp: renew_lease", self.0.renew_lease(lease, ttl)).boxed()
    }
    fn release_lease<'a>(&'a self, lease: &'a Lease) -> BoxFuture<'a, Result<(), PersistError>> {
        timed("cp: release_lease", self.0.release_lease(lease)).boxed()
    }
    fn latest_since<'a>(
        &'a self,
        known: &'a CheckpointMeta,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>, PersistError>> {
        timed("cp: latest_since", self.0.latest_since(known)).boxed()
    }
    fn orphans<'a>(
        &'a self,
        before: SystemTime,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<ThreadInfo>, PersistError>> {
        self.0.orphans(before, limit)
    }
}

/// What the model serializes: the request's messages (`full`, as a provider does), the
/// same into one buffer kept across requests (`reuse`: no large allocation per run), or the
/// first 12 messages only (`fixed`: a body that does not grow with the thread, the control).
#[derive(Clone, Copy, PartialEq)]
enum Body {
    Full,
    Reuse,
    Fixed,
    /// `fixed`, then on a long thread as much CPU time again as the full body takes, spent
    /// spinning (no memory touched): the control for CPU time alone.
    Spin,
    /// `fixed`, then on a long thread writing a buffer the size of the full body (kept across
    /// runs): the control for the memory traffic alone.
    Touch,
}

fn agent(cp: Arc<dyn Checkpointer>, body: Body) -> Bench {
    let buffer = Mutex::new(Vec::<u8>::new());
    let model = FunctionModel::new(move |request: &ChatRequest| {
        let start = Instant::now();
        match body {
            Body::Full => {
                std::hint::black_box(serde_json::to_vec(&*request.messages).unwrap());
            }
            Body::Reuse => {
                let mut buffer = buffer.lock().unwrap();
                buffer.clear();
                serde_json::to_writer(&mut *buffer, &*request.messages).unwrap();
                std::hint::black_box(&*buffer);
            }
            Body::Fixed | Body::Spin | Body::Touch => {
                let n = request.messages.len().min(12);
                std::hint::black_box(serde_json::to_vec(&request.messages[..n]).unwrap());
                if request.messages.len() > 100 && body == Body::Spin {
                    while start.elapsed() < Duration::from_micros(1250) {
                        std::hint::spin_loop();
                    }
                }
                if request.messages.len() > 100 && body == Body::Touch {
                    let mut buffer = buffer.lock().unwrap();
                    buffer.resize(1_300_000, 0);
                    for (i, b) in buffer.iter_mut().enumerate() {
                        *b = b.wrapping_add(i as u8);
                    }
                    std::hint::black_box(&*buffer);
                }
            }
        }
        PHASES.add("model: request body", start.elapsed());
        FunctionModel::text("Noted.")
    });
    AgentBuilder::<_, _, (), ()>::new(model, NoTools)
        .instructions("You answer questions about the weather.")
        .shared_checkpointer(cp)
        .build()
}

fn next_id() -> u64 {
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn median(mut v: Vec<u64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_unstable();
    v[v.len() / 2] as f64 / 1000.0
}

fn main() {
    let rounds: usize = std::env::var("PHASES_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12);
    let settle = std::env::var_os("PHASES_SETTLE").is_some_and(|v| v == "1");
    let body = match std::env::var("PHASES_BODY").as_deref() {
        Ok("reuse") => Body::Reuse,
        Ok("fixed") => Body::Fixed,
        Ok("spin") => Body::Spin,
        Ok("touch") => Body::Touch,
        _ => Body::Full,
    };
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(SqlTimes)).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let extra = std::env::var("PHASES_PG_SETTINGS").unwrap_or_default();
    let mut settings = vec!["synchronous_commit=off"];
    settings.extend(extra.split(',').filter(|s| !s.is_empty()));
    let pg_server =
        PostgresServer::start_with_settings(&settings).unwrap_or_else(|e| panic!("{e}"));
    let postgres = rt
        .block_on(PostgresCheckpointer::connect(&pg_server.url()))
        .unwrap();
    let pg_pool = postgres.pool().clone();
    let sqlite = rt
        .block_on(SqliteCheckpointer::open(dir.path().join("bench.db")))
        .unwrap();
    let only = std::env::var("PHASES_BACKEND").ok();
    let backends: Vec<(&str, Arc<dyn Checkpointer>)> = vec![
        ("postgres", Arc::new(postgres)),
        ("sqlite", Arc::new(sqlite)),
    ];
    for (name, inner) in backends {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let cp: Arc<dyn Checkpointer> = Arc::new(Timed(Arc::clone(&inner)));
        let bench = agent(Arc::clone(&cp), body);
        // Per size: per phase, one sample (ns) per run.
        let mut samples: BTreeMap<usize, BTreeMap<String, Vec<u64>>> = BTreeMap::new();
        let templates: Vec<CheckpointRef> = SIZES
            .iter()
            .map(|&n| {
                let thread = format!("template-{n}");
                let messages: Vec<Message> = (0..n).map(message).collect();
                let meta = rt
                    .block_on(inner.put(CheckpointWrite::first(&thread, &messages, &json!(null))))
                    .unwrap();
                CheckpointRef::new(thread, meta.step)
            })
            .collect();
        for round in 0..rounds {
            let order: Vec<usize> = if round % 2 == 0 {
                vec![0, 1]
            } else {
                vec![1, 0]
            };
            for i in order {
                let n = SIZES[i];
                let from = &templates[i];
                rt.block_on(async {
                    let thread = format!("{}-run-{}", from.thread_id, next_id());
                    inner.fork(from, &thread).await.unwrap();
                    bench
                        .thread(thread.as_str())
                        .run("And tomorrow?", ())
                        .await
                        .unwrap();
                    if settle && name == "postgres" {
                        for statement in ["VACUUM agent_messages", "CHECKPOINT"] {
                            sqlx::raw_sql(statement).execute(&pg_pool).await.unwrap();
                        }
                    }
                    PHASES.take();
                    PHASES.on.store(true, Ordering::Relaxed);
                    for _ in 0..RUNS {
                        let start = Instant::now();
                        let run = bench
                            .thread(thread.as_str())
                            .run("And tomorrow?", ())
                            .await
                            .unwrap();
                        let total = start.elapsed();
                        drop(std::hint::black_box(run));
                        let mut phases = PHASES.take();
                        let total_ns = u64::try_from(total.as_nanos()).unwrap_or(u64::MAX);
                        let accounted: u64 = phases
                            .iter()
                            .filter(|(k, _)| {
                                (k.starts_with("cp:") && !k.contains('#'))
                                    || k.starts_with("model:")
                            })
                            .map(|(_, v)| *v)
                            .sum();
                        phases.insert("run: total".into(), total_ns);
                        phases.insert(
                            "run: rest (not cp, not body)".into(),
                            total_ns.saturating_sub(accounted),
                        );
                        let by_phase = samples.entry(n).or_default();
                        for (k, v) in phases {
                            by_phase.entry(k).or_default().push(v);
                        }
                    }
                    PHASES.on.store(false, Ordering::Relaxed);
                    inner.delete_thread(&thread).await.unwrap();
                });
            }
        }
        println!("== {name}: medians per run over {rounds} rounds of {RUNS} runs (µs)");
        let phases: std::collections::BTreeSet<&String> =
            samples.values().flat_map(|p| p.keys()).collect();
        println!("{:<44} {:>12} {:>12} {:>10}", "phase", "10", "5000", "diff");
        for phase in phases {
            let at = |n: usize| {
                samples
                    .get(&n)
                    .and_then(|p| p.get(phase))
                    .map(|v| median(v.clone()))
                    .unwrap_or(0.0)
            };
            let (a, b) = (at(10), at(5000));
            println!("{phase:<44} {a:>12.1} {b:>12.1} {:>10.1}", b - a);
        }
        let net = |n: usize| {
            let p = &samples[&n];
            median(p["run: total"].clone()) - median(p["model: request body"].clone())
        };
        println!(
            "RATIO {name}: (median run - median body) at 5000 / at 10 = {:.3}x",
            net(5000) / net(10)
        );
    }
    drop(pg_server);
}
