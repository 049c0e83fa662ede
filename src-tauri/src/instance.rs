//! One window per profile. A second launch with the same profile hands its
//! paths to that profile's window and ends (tauri-plugin-single-instance);
//! a launch with another profile opens a window of its own. On Linux the
//! plugin finds the running window by a D-Bus name: here it is the app's
//! identifier and a hash of the profile folder, so that one profile's
//! launch never reaches another profile's window.
//!
//! Before handing over, a Linux launch asks the bus which process holds
//! that name: only this same program may take the paths. A program that
//! took the name first would receive them and make every launch end with no
//! window; such a launch hands it nothing, says why on stderr and opens its
//! own window. On Windows and macOS the plugin names its mutex or socket
//! after the identifier alone: there, one window serves every profile.

use dcp_host::sha256_hex;
use std::path::Path;

/// The suffix the plugin appends to its D-Bus id for its name.
#[cfg(any(test, target_os = "linux"))]
const NAME_SUFFIX: &str = ".SingleInstance";

/// The plugin's D-Bus id for a profile: the app's identifier, then `p` and
/// 16 hex digits of the SHA-256 of the profile folder's canonical path
/// (the same profile reached by another path is the same instance).
pub fn bus_id(identifier: &str, profile: &Path) -> String {
    let profile = profile.canonicalize().unwrap_or_else(|_| profile.to_path_buf());
    let hash = sha256_hex(profile.as_os_str().as_encoded_bytes());
    format!("{identifier}.p{}", &hash[..16])
}

/// Whether this launch may hand its paths to the window holding `bus_id`'s
/// name (or, with nobody holding it, become that window). When another
/// program holds it, says so on stderr and answers false: this launch then
/// opens its own window, without the plugin.
#[cfg(target_os = "linux")]
pub fn may_hand_over(bus_id: &str) -> bool {
    // Without a session bus the plugin launches normally: nothing to check.
    let Ok(bus) = zbus::blocking::Connection::session() else { return true };
    let name = format!("{bus_id}{NAME_SUFFIX}");
    let this_program = std::env::current_exe().unwrap_or_default();
    match holder(&bus, &name, &this_program) {
        Ok(Holder::Nobody | Holder::ThisProgram) => true,
        Ok(Holder::Other { pid, program }) => {
            eprintln!(
                "Desktop Companion Plugins: the name {name} on the session bus is held by another program \
                 (process {pid}, {program}), not by a window of this app: nothing was handed to it, and this \
                 launch opens its own window. End that program to get one window per profile again."
            );
            false
        }
        // The bus did not say: the plugin finds out as it always did.
        Err(_) => true,
    }
}

/// Elsewhere the plugin's own mutex or socket decides.
#[cfg(not(target_os = "linux"))]
pub fn may_hand_over(_bus_id: &str) -> bool {
    true
}

/// Who holds a name on the bus.
#[cfg(target_os = "linux")]
#[derive(Debug, PartialEq, Eq)]
pub enum Holder {
    /// Nobody: this launch becomes the window.
    Nobody,
    /// A process running this same program.
    ThisProgram,
    /// Another program.
    Other {
        /// Its process id, as the bus knows it.
        pid: u32,
        /// Its program's path (or why it cannot be read).
        program: String,
    },
}

/// Who holds `name`: the bus daemon gives its process id, and the process's
/// program is compared with `this_program`.
#[cfg(target_os = "linux")]
pub fn holder(bus: &zbus::blocking::Connection, name: &str, this_program: &Path) -> zbus::Result<Holder> {
    let name = zbus::names::BusName::try_from(name)?;
    let pid = match zbus::blocking::fdo::DBusProxy::new(bus)?.get_connection_unix_process_id(name) {
        Ok(pid) => pid,
        Err(zbus::fdo::Error::NameHasNoOwner(_)) => return Ok(Holder::Nobody),
        Err(e) => return Err(e.into()),
    };
    Ok(match std::fs::read_link(format!("/proc/{pid}/exe")) {
        Ok(program) if program == this_program => Holder::ThisProgram,
        Ok(program) => Holder::Other { pid, program: program.display().to_string() },
        Err(e) => Holder::Other { pid, program: format!("its program cannot be read: {e}") },
    })
}

#[cfg(test)]
mod tests {
    use super::{bus_id, NAME_SUFFIX};

    const APP: &str = "com.desktopaicompanion.plugins";

    /// A D-Bus name: elements of [A-Za-z0-9_-], none starting with a digit, 255 bytes at most.
    fn is_bus_name(name: &str) -> bool {
        name.len() <= 255
            && name.split('.').all(|e| {
                !e.is_empty()
                    && !e.starts_with(|c: char| c.is_ascii_digit())
                    && e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            })
    }

    #[test]
    fn each_profile_has_its_own_name_and_one_profile_one_name() {
        let root = tempfile::tempdir().expect("temp dir");
        let (a, b) = (root.path().join("a"), root.path().join("b"));
        std::fs::create_dir_all(&a).expect("a");
        std::fs::create_dir_all(&b).expect("b");
        let id = bus_id(APP, &a);
        assert!(id.starts_with(&format!("{APP}.p")) && id.len() == APP.len() + 18, "{id}");
        assert!(is_bus_name(&format!("{id}{NAME_SUFFIX}")), "{id}");
        assert_ne!(id, bus_id(APP, &b));
        assert_eq!(id, bus_id(APP, &root.path().join("b/../a")));
    }

    #[cfg(target_os = "linux")]
    mod bus {
        use super::super::{holder, Holder};
        use std::io::{BufRead, BufReader};
        use std::process::{Child, Command, Stdio};

        /// A private session bus (dbus-daemon), ended when dropped.
        struct Bus {
            daemon: Child,
            address: String,
        }

        impl Bus {
            fn start() -> Bus {
                let mut daemon = Command::new("dbus-daemon")
                    .args(["--session", "--nofork", "--print-address=1"])
                    .stdout(Stdio::piped())
                    .spawn()
                    .expect("dbus-daemon (Debian package dbus-daemon) starts");
                let mut address = String::new();
                BufReader::new(daemon.stdout.take().expect("stdout")).read_line(&mut address).expect("its address");
                Bus { daemon, address: address.trim().to_owned() }
            }

            fn connect(&self) -> zbus::blocking::Connection {
                zbus::blocking::connection::Builder::address(self.address.as_str())
                    .expect("address")
                    .build()
                    .expect("connected")
            }
        }

        impl Drop for Bus {
            fn drop(&mut self) {
                let _ = self.daemon.kill();
                let _ = self.daemon.wait();
            }
        }

        const NAME: &str = "com.desktopaicompanion.plugins.ptest.SingleInstance";

        #[test]
        fn a_name_nobody_holds_is_free() {
            let bus = Bus::start();
            let this = std::env::current_exe().expect("this program");
            assert_eq!(holder(&bus.connect(), NAME, &this).expect("asked"), Holder::Nobody);
        }

        /// The holder here is this test program: it is "this program" to
        /// itself, and another program to a dcp-app.
        #[test]
        fn the_holder_is_told_by_its_program() {
            let bus = Bus::start();
            let owner = bus.connect();
            owner.request_name(NAME).expect("name taken");
            let asking = bus.connect();
            let this = std::env::current_exe().expect("this program");
            assert_eq!(holder(&asking, NAME, &this).expect("asked"), Holder::ThisProgram);
            let app = this.with_file_name("dcp-app");
            let other = holder(&asking, NAME, &app).expect("asked");
            assert_eq!(other, Holder::Other { pid: std::process::id(), program: this.display().to_string() });
        }
    }
}
