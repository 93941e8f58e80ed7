//! The in-process checkpointer.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use futures::FutureExt;
use futures::future::BoxFuture;

use super::checkpoint::validate_thread_id;
use super::format::{Body, FORMAT_VERSION, checkpoint_from_body};
use super::lease::ttl_ms;
use super::{
    Checkpoint, CheckpointMeta, CheckpointRef, CheckpointWrite, Checkpointer, Lease, PersistError,
    ThreadInfo,
};
use crate::message::Message;

/// Checkpoints kept in memory, lost when the process ends. Messages are stored once per
/// thread, append-only, like the database backends.
#[derive(Debug, Default)]
pub struct InMemoryCheckpointer {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    threads: HashMap<String, Thread>,
    leases: HashMap<String, Lease>,
    /// Orders threads by last update when times tie.
    clock: u64,
}

#[derive(Debug)]
struct Thread {
    forked_from: Option<CheckpointRef>,
    created_at: SystemTime,
    updated_at: SystemTime,
    updated_seq: u64,
    messages: Vec<Message>,
    checkpoints: Vec<(CheckpointMeta, Body)>,
}

impl Thread {
    fn info(&self, thread_id: &str) -> ThreadInfo {
        let (latest, _) = self.checkpoints.last().expect("a thread has a checkpoint");
        ThreadInfo {
            thread_id: thread_id.to_string(),
            latest_step: latest.step,
            message_count: latest.message_count,
            forked_from: self.forked_from.clone(),
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }

    fn checkpoint(&self, index: usize) -> Checkpoint {
        let (meta, body) = &self.checkpoints[index];
        checkpoint_from_body(
            meta.thread_id.clone(),
            meta.step,
            meta.parent.clone(),
            meta.format_version,
            self.messages[..meta.message_count as usize].to_vec(),
            body.clone(),
            meta.created_at,
        )
    }
}

impl InMemoryCheckpointer {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn put_now(&self, write: CheckpointWrite<'_>) -> Result<CheckpointMeta, PersistError> {
        write.validate()?;
        let mut inner = self.lock();
        if write.lease.is_none()
            && let Some(held) = inner.leases.get(write.thread_id)
            && held.expires_at > SystemTime::now()
        {
            return Err(PersistError::Leased {
                thread_id: write.thread_id.to_string(),
                worker: held.worker.clone(),
            });
        }
        if let Some(lease) = write.lease {
            let current = inner.leases.get(write.thread_id);
            if current.is_none_or(|l| {
                l.token != lease.token
                    || l.worker != lease.worker
                    || l.expires_at == std::time::UNIX_EPOCH
            }) {
                return Err(PersistError::LeaseLost {
                    thread_id: write.thread_id.to_string(),
                });
            }
        }
        inner.clock += 1;
        let seq = inner.clock;
        let now = SystemTime::now();
        let found = inner
            .threads
            .get(write.thread_id)
            .map(|t| t.checkpoints.last().map_or(0, |(m, _)| m.step));
        if found != write.after {
            return Err(PersistError::Conflict {
                thread_id: write.thread_id.to_string(),
                expected: write.after,
                found,
            });
        }
        let thread = inner
            .threads
            .entry(write.thread_id.to_string())
            .or_insert_with(|| Thread {
                forked_from: None,
                created_at: now,
                updated_at: now,
                updated_seq: seq,
                messages: Vec::new(),
                checkpoints: Vec::new(),
            });
        thread.messages.extend_from_slice(write.new_messages);
        thread.updated_at = now;
        thread.updated_seq = seq;
        let meta = CheckpointMeta {
            thread_id: write.thread_id.to_string(),
            step: write.step(),
            parent: write
                .after
                .map(|step| CheckpointRef::new(write.thread_id, step)),
            format_version: FORMAT_VERSION,
            message_count: thread.messages.len() as u64,
            created_at: now,
        };
        let body = Body {
            state: write.state.clone(),
            usage: write.usage,
            counters: write.counters.clone(),
            pending: write.pending.cloned(),
        };
        thread.checkpoints.push((meta.clone(), body));
        Ok(meta)
    }

    fn fork_now(
        &self,
        from: &CheckpointRef,
        new_thread_id: &str,
    ) -> Result<CheckpointMeta, PersistError> {
        validate_thread_id(new_thread_id)?;
        let mut inner = self.lock();
        if let Some(existing) = inner.threads.get(new_thread_id) {
            return Err(PersistError::Conflict {
                thread_id: new_thread_id.to_string(),
                expected: None,
                found: existing.checkpoints.last().map(|(m, _)| m.step),
            });
        }
        let not_found = || PersistError::NotFound {
            thread_id: from.thread_id.clone(),
            step: from.step,
        };
        let source = inner.threads.get(&from.thread_id).ok_or_else(not_found)?;
        let (source_meta, source_body) = source
            .checkpoints
            .iter()
            .find(|(m, _)| m.step == from.step)
            .ok_or_else(not_found)?;
        let messages = source.messages[..source_meta.message_count as usize].to_vec();
        let body = source_body.clone();
        let now = SystemTime::now();
        let meta = CheckpointMeta {
            thread_id: new_thread_id.to_string(),
            step: 1,
            parent: Some(from.clone()),
            format_version: FORMAT_VERSION,
            message_count: messages.len() as u64,
            created_at: now,
        };
        inner.clock += 1;
        let seq = inner.clock;
        inner.threads.insert(
            new_thread_id.to_string(),
            Thread {
                forked_from: Some(from.clone()),
                created_at: now,
                updated_at: now,
                updated_seq: seq,
                messages,
                checkpoints: vec![(meta.clone(), body)],
            },
        );
        Ok(meta)
    }

    fn acquire_now(
        &self,
        thread_id: &str,
        worker: &str,
        ttl: Duration,
    ) -> Result<Option<Lease>, PersistError> {
        validate_thread_id(thread_id)?;
        let ttl = Duration::from_millis(ttl_ms(ttl)? as u64);
        let mut inner = self.lock();
        let now = SystemTime::now();
        let token = match inner.leases.get(thread_id) {
            Some(held) if held.worker != worker && held.expires_at > now => return Ok(None),
            Some(held) => held.token + 1,
            None => 1,
        };
        let lease = Lease {
            thread_id: thread_id.to_string(),
            worker: worker.to_string(),
            token,
            expires_at: now + ttl,
        };
        inner.leases.insert(thread_id.to_string(), lease.clone());
        Ok(Some(lease))
    }

    fn renew_now(&self, lease: &Lease, ttl: Duration) -> Result<Lease, PersistError> {
        let ttl = Duration::from_millis(ttl_ms(ttl)? as u64);
        let mut inner = self.lock();
        match inner.leases.get_mut(&lease.thread_id) {
            Some(held)
                if held.token == lease.token
                    && held.worker == lease.worker
                    && held.expires_at > std::time::UNIX_EPOCH =>
            {
                held.expires_at = SystemTime::now() + ttl;
                Ok(held.clone())
            }
            _ => Err(PersistError::LeaseLost {
                thread_id: lease.thread_id.clone(),
            }),
        }
    }
}

impl Checkpointer for InMemoryCheckpointer {
    fn put<'a>(
        &'a self,
        write: CheckpointWrite<'a>,
    ) -> BoxFuture<'a, Result<CheckpointMeta, PersistError>> {
        let result = self.put_now(write);
        async move { result }.boxed()
    }

    fn latest<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>, PersistError>> {
        let inner = self.lock();
        let found = inner
            .threads
            .get(thread_id)
            .map(|t| t.checkpoint(t.checkpoints.len() - 1));
        async move { Ok(found) }.boxed()
    }

    fn get<'a>(
        &'a self,
        thread_id: &'a str,
        step: u64,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>, PersistError>> {
        let inner = self.lock();
        let found = inner.threads.get(thread_id).and_then(|t| {
            let index = t.checkpoints.iter().position(|(m, _)| m.step == step)?;
            Some(t.checkpoint(index))
        });
        async move { Ok(found) }.boxed()
    }

    fn history<'a>(
        &'a self,
        thread_id: &'a str,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<CheckpointMeta>, PersistError>> {
        let inner = self.lock();
        let metas = inner
            .threads
            .get(thread_id)
            .map(|t| {
                t.checkpoints
                    .iter()
                    .rev()
                    .take(limit)
                    .map(|(m, _)| m.clone())
                    .collect()
            })
            .unwrap_or_default();
        async move { Ok(metas) }.boxed()
    }

    fn threads<'a>(&'a self, limit: usize) -> BoxFuture<'a, Result<Vec<ThreadInfo>, PersistError>> {
        let inner = self.lock();
        let mut threads: Vec<(&String, &Thread)> = inner.threads.iter().collect();
        threads.sort_by_key(|t| std::cmp::Reverse(t.1.updated_seq));
        let infos = threads
            .into_iter()
            .take(limit)
            .map(|(id, t)| t.info(id))
            .collect();
        async move { Ok(infos) }.boxed()
    }

    fn delete_thread<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<bool, PersistError>> {
        let mut inner = self.lock();
        let existed = inner.threads.remove(thread_id).is_some();
        inner.leases.remove(thread_id);
        async move { Ok(existed) }.boxed()
    }

    fn fork<'a>(
        &'a self,
        from: &'a CheckpointRef,
        new_thread_id: &'a str,
    ) -> BoxFuture<'a, Result<CheckpointMeta, PersistError>> {
        let result = self.fork_now(from, new_thread_id);
        async move { result }.boxed()
    }

    fn acquire_lease<'a>(
        &'a self,
        thread_id: &'a str,
        worker: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<Lease>, PersistError>> {
        let result = self.acquire_now(thread_id, worker, ttl);
        async move { result }.boxed()
    }

    fn renew_lease<'a>(
        &'a self,
        lease: &'a Lease,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Lease, PersistError>> {
        let result = self.renew_now(lease, ttl);
        async move { result }.boxed()
    }

    fn release_lease<'a>(&'a self, lease: &'a Lease) -> BoxFuture<'a, Result<(), PersistError>> {
        let mut inner = self.lock();
        if let Some(held) = inner.leases.get_mut(&lease.thread_id)
            && held.token == lease.token
            && held.worker == lease.worker
        {
            held.expires_at = std::time::UNIX_EPOCH;
        }
        async { Ok(()) }.boxed()
    }
}
