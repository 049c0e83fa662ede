//! When the door listens: one task polls the store, opens the listener on
//! `127.0.0.1:<port>` while [`door_wanted`](super::door_wanted) says so and
//! closes it otherwise (nothing listens then), reports a port held by
//! another program, and ticks the waiting queue at each poll. Each poll
//! also notes the installed plugins, for the journal of bad tokens.

use super::connections::accept;
use super::switches::{survey, Wanted};
use super::ticker::{tick_queue, Notice};
use super::{lock, DoorState, Shared};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use tokio::net::{TcpListener, TcpSocket};
use tokio::task::JoinHandle;

/// Connections the kernel holds for the door before it accepts them. The
/// default of `TcpListener::bind` is 128 here, fewer than the slow clients
/// of issue 11's test: the kernel then drops a program's connection
/// request and its connect waits a second or more for the retry. The
/// kernel caps it at `net.core.somaxconn` (4096 on current Linux).
const BACKLOG: u32 = 1024;

/// The door's socket on `127.0.0.1:port`.
fn listen(port: u16) -> std::io::Result<TcpListener> {
    let socket = TcpSocket::new_v4()?;
    // As `TcpListener::bind` does: on Unix it only lets the door reopen
    // while closed connections linger; on Windows it would let another
    // program take the port too, so it is left off there.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))?;
    socket.listen(BACKLOG)
}

/// The accept loop's task, aborted when dropped (also when the supervisor
/// itself is aborted), so the socket never outlives the door.
struct Listening(JoinHandle<()>);

impl Listening {
    /// Returns once the accept loop, and with it the socket, is gone.
    async fn close(mut self) {
        self.0.abort();
        let _ = (&mut self.0).await;
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.0.abort();
    }
}

pub(super) async fn supervise(shared: Arc<Shared>) {
    let mut listener: Option<Listening> = None;
    let mut last: Option<DoorState> = None;
    loop {
        let (wanted, installed) = {
            let store = lock(&shared.store);
            survey(&store)
        };
        *lock(&shared.installed) = installed;
        let state = match wanted {
            Wanted::Open => {
                if listener.is_none() {
                    if let Ok(l) = listen(shared.config.port) {
                        listener = Some(Listening(tokio::spawn(accept(shared.clone(), l))));
                    }
                }
                if listener.is_some() {
                    DoorState::Listening { port: shared.config.port }
                } else {
                    DoorState::PortTaken { port: shared.config.port }
                }
            }
            why => {
                if let Some(l) = listener.take() {
                    l.close().await;
                }
                DoorState::Closed { why }
            }
        };
        if last.as_ref() != Some(&state) {
            *lock(&shared.state) = state.clone();
            let _ = shared.notices.send(Notice::Door { state: state.clone() });
            last = Some(state);
        }
        tick_queue(&shared);
        tokio::select! {
            () = tokio::time::sleep(shared.config.poll) => {}
            () = shared.stopping.notified() => break,
        }
    }
    if let Some(l) = listener {
        l.close().await;
    }
}
