//! When to stop, as a type (tokio's mini-redis: `Shutdown`): a task that runs until the server
//! stops holds a [`Shutdown`], asks [`Shutdown::is_shutdown`] between steps or awaits
//! [`Shutdown::recv`] beside its work; whoever starts the stop holds the [`Stop`] and calls
//! [`Stop::begin`] once.
//!
//! Unlike a bare `watch::Receiver`, a `Shutdown` made after the stop began sees it (`recv`
//! returns at once), so a task started late (a room made while the server drains) never
//! waits for a signal that came before it.

use tokio::sync::watch;

/// The side that says "stop": one per group of tasks that stop together.
#[derive(Debug)]
pub struct Stop(watch::Sender<bool>);

impl Stop {
    pub fn new() -> Stop {
        Stop(watch::channel(false).0)
    }

    /// A listener for this stop.
    pub fn subscribe(&self) -> Shutdown {
        Shutdown(self.0.subscribe())
    }

    /// Tells every [`Shutdown`] of this stop, those made later included. Idempotent.
    pub fn begin(&self) {
        self.0.send_replace(true);
    }
}

impl Default for Stop {
    fn default() -> Stop {
        Stop::new()
    }
}

/// A task's view of a [`Stop`]: whether it began, and a future that completes when it does
/// (or when the `Stop` is dropped: nobody is left to keep the task going).
#[derive(Clone, Debug)]
pub struct Shutdown(watch::Receiver<bool>);

impl Shutdown {
    /// Whether the stop began.
    pub fn is_shutdown(&self) -> bool {
        *self.0.borrow()
    }

    /// Completes once the stop began (at once if it has already).
    pub async fn recv(&mut self) {
        let _ = self.0.wait_for(|stopped| *stopped).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_shutdown_sees_a_stop_begun_before_or_after_it_was_made() {
        let stop = Stop::new();
        let mut early = stop.subscribe();
        assert!(!early.is_shutdown());
        let waiting = tokio::spawn(async move {
            early.recv().await;
            early.is_shutdown()
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        stop.begin();
        assert!(waiting.await.unwrap());
        // Made after the stop: it has begun, and recv does not wait.
        let mut late = stop.subscribe();
        assert!(late.is_shutdown());
        tokio::time::timeout(std::time::Duration::from_secs(5), late.recv())
            .await
            .expect("recv returns at once after the stop");
        stop.begin();
        // The stop dropped: a waiting task is let go.
        let lone = Stop::new();
        let mut orphan = lone.subscribe();
        drop(lone);
        tokio::time::timeout(std::time::Duration::from_secs(5), orphan.recv())
            .await
            .expect("recv returns once the stop is gone");
    }
}
