//! The Desktop Companion plugin host window. Everything lives in the
//! library so that tests can reach it.

// No console window beside the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    dcp_app::run();
}
