//! The main window, made at start from its entry in tauri.conf.json
//! (`"create": false` there) with two things the config cannot say:
//!
//! - its WebKit data (cookies, caches, storage) lives inside the profile,
//!   in a folder only the player can open (0700), instead of the app's data
//!   folder that Tauri picks by default, made with the umask's mode and
//!   shared by every profile;
//! - it shows the app's own pages only: a navigation anywhere else (a
//!   remote site, a file, `data:`) is refused and the panel stays.

use std::path::{Path, PathBuf};
use tauri::{App, Url, WebviewWindowBuilder};

/// The main window's label, as in tauri.conf.json.
pub const MAIN: &str = "main";

/// The folder of the window's WebKit data, under the profile.
const WEBVIEW_DIR: &str = "webview";

/// Opens the main window on the profile's folder.
pub fn open(app: &App, profile: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let config = app
        .config()
        .app
        .windows
        .iter()
        .find(|w| w.label == MAIN)
        .ok_or("tauri.conf.json declares no main window")?
        .clone();
    WebviewWindowBuilder::from_config(app.handle(), &config)?
        .data_directory(data_dir(profile)?)
        .on_navigation(is_own_page)
        .build()?;
    Ok(())
}

/// The window's WebKit data folder, `<profile>/webview`, made if needed
/// and private to the player (0700) even when it was not.
pub fn data_dir(profile: &Path) -> std::io::Result<PathBuf> {
    let dir = profile.join(WEBVIEW_DIR);
    private_dir(&dir)?;
    Ok(dir)
}

#[cfg(unix)]
fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

/// Elsewhere the profile's own access rules cover it.
#[cfg(not(unix))]
fn private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Whether `url` is one of the app's own pages: the origin Tauri serves
/// the embedded UI from (`tauri://localhost`; `http://tauri.localhost` where
/// WebView2 cannot serve a custom scheme).
pub fn is_own_page(url: &Url) -> bool {
    let (scheme, host) =
        if cfg!(any(windows, target_os = "android")) { ("http", "tauri.localhost") } else { ("tauri", "localhost") };
    url.scheme() == scheme
        && url.host_str() == Some(host)
        && url.port().is_none()
        && url.username().is_empty()
        && url.password().is_none()
}

#[cfg(test)]
mod tests {
    use super::{data_dir, is_own_page};
    use tauri::Url;

    fn own(url: &str) -> bool {
        is_own_page(&Url::parse(url).expect(url))
    }

    #[test]
    fn the_apps_own_pages_are_allowed() {
        let base = if cfg!(windows) { "http://tauri.localhost" } else { "tauri://localhost" };
        for page in ["", "/", "/index.html", "/index.html#/plugins?tab=1"] {
            assert!(own(&format!("{base}{page}")), "{base}{page}");
        }
    }

    #[test]
    fn any_other_page_is_refused() {
        for url in [
            "https://example.invalid/",
            "https://localhost/",
            "http://localhost:1420/",
            "tauri://localhost.example.com/",
            "tauri://evil/",
            "tauri://user@localhost/",
            "tauri://localhost:8080/",
            "file:///etc/passwd",
            "data:text/html,<h1>hi</h1>",
            "about:blank",
            "javascript:alert(1)",
        ] {
            assert!(!own(url), "{url}");
        }
        if !cfg!(windows) {
            // Elsewhere than WebView2 this is a real host name, served by whatever listens on port 80.
            assert!(!own("http://tauri.localhost/"));
        }
    }

    #[cfg(unix)]
    fn mode(path: &std::path::Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).expect("metadata").permissions().mode() & 0o777
    }

    #[cfg(unix)]
    #[test]
    fn the_webkit_data_is_in_the_profile_and_private() {
        use std::os::unix::fs::PermissionsExt;
        let profile = tempfile::tempdir().expect("profile");
        let dir = data_dir(profile.path()).expect("made");
        assert_eq!(dir, profile.path().join("webview"));
        assert_eq!(mode(&dir), 0o700);
        // A folder left readable by an older version is made private again.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        assert_eq!(data_dir(profile.path()).expect("again"), dir);
        assert_eq!(mode(&dir), 0o700);
    }
}
