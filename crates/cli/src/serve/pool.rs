//! A bounded pool for blocking work (API answers, file reads, compression).
//!
//! The connection tasks never compute: they wait here for a permit, and the
//! work runs on tokio's blocking threads, at most `permits` at a time. The
//! semaphore is fair (first come, first served), and every connection has at
//! most one request in flight (HTTP/1 answers in order), so a client with
//! slow queries delays others by at most its own connections' share, and a
//! client that does not read its answers holds no permit while its bytes
//! wait in the socket.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

/// Why a job did not run.
#[derive(Debug)]
pub enum PoolError {
    /// No permit within the queueing bound: the server is saturated.
    Busy,
    /// The job panicked (debug builds; release builds abort).
    Failed,
}

#[derive(Clone)]
pub struct Pool {
    permits: Arc<Semaphore>,
    max_wait: Duration,
}

impl Pool {
    pub fn new(permits: usize, max_wait: Duration) -> Pool {
        Pool {
            permits: Arc::new(Semaphore::new(permits)),
            max_wait,
        }
    }

    /// Runs `job` on a blocking thread once a permit is free. The permit
    /// moves into the job, so a client that disconnects while its job runs
    /// does not free a slot before the thread does.
    pub async fn run<T, F>(&self, job: F) -> Result<T, PoolError>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let permit = tokio::time::timeout(self.max_wait, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| PoolError::Busy)?
            .map_err(|_| PoolError::Failed)?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            job()
        })
        .await
        .map_err(|_| PoolError::Failed)
    }
}
