//! Who holds the door's port when the door cannot open it (§16): another
//! event door (the app's window beside `dcplugin serve`, or the other way
//! round, of any profile), or a program that is no door. The shells word
//! each differently: a door already takes the events, a foreign program
//! must be closed.

use dcp_format::codes::EventReason;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// How long [`held_by_a_door`] waits for each step: a door on this PC
/// answers at once.
const DOOR_ASKED_WITHIN: Duration = Duration::from_secs(1);

/// Whether the program holding 127.0.0.1:`port` is an event door. It is
/// asked as no program posting events asks: a GET of an event path, which
/// a door refuses `method_not_allowed` with its JSON body before it reads
/// any plugin (so nothing is journaled). Any other answer, or none in time:
/// not known to be a door. Blocking, two seconds at most.
pub fn held_by_a_door(port: u16) -> bool {
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    let Ok(mut stream) = TcpStream::connect_timeout(&address, DOOR_ASKED_WITHIN) else { return false };
    if stream.set_read_timeout(Some(DOOR_ASKED_WITHIN)).is_err()
        || stream.set_write_timeout(Some(DOOR_ASKED_WITHIN)).is_err()
    {
        return false;
    }
    let request = format!("GET /v1/events/door-check HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    // What came before the end or the timeout is enough: the status line and a short body.
    let mut answer = Vec::new();
    let _ = stream.take(4096).read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    let refusal = format!(r#"{{"status":"refused","reason":"{}"}}"#, EventReason::MethodNotAllowed);
    answer.starts_with("HTTP/1.1 405 ") && answer.ends_with(&refusal)
}
