//! The host's event stream, forwarded to the window as the Tauri event
//! [`HOST_EVENT`], so the UI stays live without polling.

use dcp_host::events::HostEvent;
use tauri::{AppHandle, Emitter};
use tokio::sync::broadcast::{error::RecvError, Receiver};

/// The Tauri event carrying one `HostEvent` as JSON.
pub const HOST_EVENT: &str = "host-event";

/// Forwards every host event to the window until the host goes away.
pub fn host_events(app: AppHandle, mut events: Receiver<HostEvent>) {
    tauri::async_runtime::spawn(async move {
        loop {
            match events.recv().await {
                // A window that is closing cannot take it: nothing to do.
                Ok(event) => {
                    let _ = app.emit(HOST_EVENT, &event);
                }
                // The status poll reports each card that changed again; go on with the next ones.
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => break,
            }
        }
    });
}
