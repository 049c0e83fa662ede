//! The accept loop and each connection: one request per connection (no
//! keep-alive), 5 s to receive the headers, at most 64 connections at once.

use super::answer::answer;
use super::{Shared, READ_LIMIT};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

pub(super) async fn accept(shared: Arc<Shared>, listener: TcpListener) {
    loop {
        let Ok(permit) = shared.connections.clone().acquire_owned().await else { return };
        let Ok((stream, _)) = listener.accept().await else {
            // Out of descriptors, for example: breathe instead of spinning.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let shared = shared.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let service = hyper::service::service_fn(move |req| {
                let shared = shared.clone();
                async move { Ok::<_, Infallible>(answer(&shared, req).await) }
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .keep_alive(false)
                .max_buf_size(16 * 1024)
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(READ_LIMIT);
            let conn = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            let _ = tokio::time::timeout(READ_LIMIT * 3, conn).await;
        });
    }
}
