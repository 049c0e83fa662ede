//! The Desktop Companion plugin host window. Everything lives in the
//! library so that tests can reach it.

// No console window beside the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // First thing: `ui_ready` measures the start-up from here.
    let started = std::time::Instant::now();
    dcp_app::run(started);
}
