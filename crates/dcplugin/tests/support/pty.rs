//! A program run on a pseudo-terminal, as a player runs it in a terminal:
//! its standard input, output and error are the terminal (so `is_terminal()`
//! holds and the terminal echoes what is typed), what it prints is kept as
//! raw bytes, and the test types into it (issue 32).

use super::Running;
use rustix::fs::OFlags;
use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Command, ExitStatus};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long a test waits for what it expects before it fails.
const WAIT: Duration = Duration::from_secs(20);

/// Bytes the program printed so far, and a signal for each new piece.
type Printed = Arc<(Mutex<Vec<u8>>, Condvar)>;

/// A program on a pseudo-terminal; killed when dropped.
pub struct Pty {
    child: Running,
    /// The terminal's side the test types into and reads from.
    master: File,
    /// The program's side, kept open to see what it has not read yet.
    terminal: File,
    printed: Printed,
}

impl Pty {
    /// Starts `command` with the terminal as its standard input, output and error.
    pub fn spawn(mut command: Command) -> Pty {
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("a pseudo-terminal");
        grantpt(&master).expect("grantpt");
        unlockpt(&master).expect("unlockpt");
        let name = ptsname(&master, Vec::new()).expect("ptsname");
        let terminal = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(OFlags::NOCTTY.bits() as i32)
            .open(name.to_str().expect("a path"))
            .expect("the terminal's side");
        let side = || terminal.try_clone().expect("clone");
        let child = command.stdin(side()).stdout(side()).stderr(side()).spawn().expect("the program starts");
        let master = File::from(master);
        let printed: Printed = Arc::default();
        let mut reading = master.try_clone().expect("clone");
        let keep = printed.clone();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            // Ends with an error once the program's side is closed.
            while let Ok(n @ 1..) = reading.read(&mut buffer) {
                let (bytes, more) = &*keep;
                bytes.lock().expect("lock").extend_from_slice(&buffer[..n]);
                more.notify_all();
            }
        });
        Pty { child: Running(child), master, terminal, printed }
    }

    /// [`Pty::spawn`], the program leading a session of its own whose
    /// controlling terminal is this one, as a shell starts it: Ctrl-C typed
    /// (`\u{3}`) reaches it as SIGINT (issue 33). Through util-linux's
    /// `setsid --ctty`, which execs the program in place (same pid): the
    /// `pre_exec` that would do it here needs `unsafe`, forbidden in this
    /// workspace.
    #[cfg(target_os = "linux")]
    pub fn spawn_in_session(command: Command) -> Pty {
        let mut session = Command::new("setsid");
        session.arg("--ctty").arg(command.get_program()).args(command.get_args());
        for (name, value) in command.get_envs() {
            match value {
                Some(value) => session.env(name, value),
                None => session.env_remove(name),
            };
        }
        if let Some(dir) = command.get_current_dir() {
            session.current_dir(dir);
        }
        Pty::spawn(session)
    }

    /// Types `text` (a line ends with "\n", Ctrl-D is "\u{4}").
    pub fn type_in(&mut self, text: &str) {
        self.master.write_all(text.as_bytes()).expect("type");
    }

    /// Everything printed so far (the terminal's echo of what was typed included).
    pub fn printed(&self) -> Vec<u8> {
        self.printed.0.lock().expect("lock").clone()
    }

    /// Waits until what was printed contains `needle`; panics with the
    /// output after [`WAIT`].
    pub fn wait_for(&self, needle: &str) {
        let (bytes, more) = &*self.printed;
        let deadline = Instant::now() + WAIT;
        let mut seen = bytes.lock().expect("lock");
        while !seen.windows(needle.len()).any(|w| w == needle.as_bytes()) {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "never printed {needle:?}; printed: {}", String::from_utf8_lossy(&seen));
            seen = more.wait_timeout(seen, left).expect("lock").0;
        }
    }

    /// Waits until the program has read every line typed (the terminal
    /// holds none unread): what it does with them is then its own.
    pub fn wait_read(&self) {
        let deadline = Instant::now() + WAIT;
        while rustix::io::ioctl_fionread(&self.terminal).expect("FIONREAD") > 0 {
            assert!(Instant::now() < deadline, "the program never read what was typed");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Waits for the program to end.
    pub fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.0.try_wait().expect("wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "the program did not end; printed: {}", self.text());
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// What was printed, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.printed()).into_owned()
    }
}
