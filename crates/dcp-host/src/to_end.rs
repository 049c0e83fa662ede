//! A tool call runs to its end whoever waits for it (§3 "A tool call",
//! §14 "Concurrency"): a call already sent still gets its journal line,
//! gives its plugin's lock back and is reported on the stream, even when
//! its caller stops waiting (a window closed, a turn given up).
//!
//! Spawning each call as a task of the host's runtime gives that, at the
//! price of two thread switches per call, and of `block_in_place` on a
//! worker (which hands the worker's core to another thread) for its short
//! store work: most of what the host added to a call in
//! `dcp-companion`'s benches/turn.rs. [`ToEnd`] polls the call in the
//! caller's own task instead, with the host's runtime entered (its sockets
//! and timers are the host's, whichever runtime the caller has), and
//! hands what is left of it to the host's runtime only if the caller drops
//! it before its end.

use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use tokio::runtime::Handle;

/// A boxed call: its state moves to the host's runtime as it is.
type Call<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// `call`, run in the awaiting task, finished on `runtime` if dropped early.
pub(crate) struct ToEnd<T: Send + 'static> {
    call: Option<Call<T>>,
    runtime: Handle,
}

impl<T: Send + 'static> ToEnd<T> {
    pub(crate) fn new(call: impl Future<Output = T> + Send + 'static, runtime: Handle) -> Self {
        ToEnd { call: Some(Box::pin(call)), runtime }
    }
}

impl<T: Send + 'static> Future for ToEnd<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = &mut *self;
        let _host = this.runtime.enter();
        let call = this.call.as_mut().expect("a finished call is not polled again");
        let out = ready!(call.as_mut().poll(cx));
        this.call = None;
        Poll::Ready(out)
    }
}

impl<T: Send + 'static> Drop for ToEnd<T> {
    /// The caller stopped waiting: the rest runs as a task of the host's
    /// (a runtime shutting down drops it, as it would the task).
    fn drop(&mut self) {
        if let Some(call) = self.call.take() {
            drop(self.runtime.spawn(async move { drop(call.await) }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Waker;
    use std::time::Duration;

    fn host_runtime() -> tokio::runtime::Runtime {
        let mut runtime = tokio::runtime::Builder::new_multi_thread();
        runtime.worker_threads(1).thread_name("host-runtime").enable_all().build().expect("runtime")
    }

    fn thread_name() -> Option<String> {
        std::thread::current().name().map(str::to_owned)
    }

    /// Awaited to its end, the call runs in the awaiting task, on the
    /// caller's thread: no task of the host's, no thread switch.
    #[test]
    fn awaited_it_runs_on_the_callers_thread() {
        let host = host_runtime();
        let caller = std::thread::current().id();
        let ran_on = host.block_on(ToEnd::new(async { std::thread::current().id() }, host.handle().clone()));
        assert_eq!(ran_on, caller);
    }

    /// Dropped before its end, what is left of the call runs on the host's
    /// runtime, even when it was first polled outside any runtime: its
    /// timers (and sockets) are the host's.
    #[test]
    fn dropped_early_it_ends_on_the_hosts_runtime() {
        let host = host_runtime();
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let (done, ended) = std::sync::mpsc::channel();
        let mut call = ToEnd::new(
            async move {
                tokio::time::sleep(Duration::from_millis(1)).await;
                let _ = released.await;
                let _ = done.send(thread_name());
            },
            host.handle().clone(),
        );
        let mut cx = Context::from_waker(Waker::noop());
        assert!(Pin::new(&mut call).poll(&mut cx).is_pending(), "waits for its timer, then for the release");
        drop(call);
        release.send(()).expect("the call is still there, on the host's runtime");
        let ended_on = ended.recv_timeout(Duration::from_secs(30)).expect("the call ended");
        assert_eq!(ended_on.as_deref(), Some("host-runtime"));
    }
}
