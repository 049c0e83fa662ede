//! What the shell handed to the window, and so all the window may act on.
//!
//! Defence in depth: the window's commands take strings from the page, and
//! a page running a script it should not (a bug, an injected one) could
//! send any. The window is given paths (a picker, a launch, a drop), the
//! reviews its imports started, and the help links of the settings it
//! shows; `import_path` and `load_folder` take only such a path, `install`
//! and `cancel` only such a review, `open_help` only such a link.

use dcp_host::{ApiError, ErrorCode, HostCode, PluginDetails, Review};
use std::collections::HashSet;
use std::sync::{Mutex, PoisonError};

/// The paths, reviews and help links given to the window so far.
#[derive(Default)]
pub struct Handed(Mutex<Given>);

#[derive(Default)]
struct Given {
    paths: HashSet<String>,
    reviews: HashSet<String>,
    help_links: HashSet<String>,
}

impl Handed {
    /// Paths the window is given (by a picker, a launch or a drop).
    pub fn paths<'a>(&self, paths: impl IntoIterator<Item = &'a String>) {
        self.given().paths.extend(paths.into_iter().cloned());
    }

    /// A review the window is given to show, with its settings' help links.
    pub fn review(&self, review: Review) -> Review {
        let mut given = self.given();
        given.reviews.insert(review.review.clone());
        given.help_links.extend(review.settings.iter().filter_map(|s| s.help_url.clone()));
        review
    }

    /// Details the window is given to show: their settings' help links.
    pub fn details(&self, details: PluginDetails) -> PluginDetails {
        self.given().help_links.extend(details.settings.iter().filter_map(|s| s.help_url.clone()));
        details
    }

    /// A path the window sends back: one it was given, else `bad_input`.
    pub fn path(&self, path: &str) -> Result<(), ApiError> {
        self.given().paths.contains(path).then_some(()).ok_or_else(|| {
            refused(
                HostCode::BadInput,
                format!("{path} was not chosen in the app: pick it, open it with the app or drop it"),
            )
        })
    }

    /// A review the window sends back: one it was shown, else `unknown_review`.
    pub fn shown_review(&self, review: &str) -> Result<(), ApiError> {
        self.given()
            .reviews
            .contains(review)
            .then_some(())
            .ok_or_else(|| refused(HostCode::UnknownReview, format!("this window was not shown the review {review}")))
    }

    /// A review installed or cancelled: the window can no longer act on it.
    pub fn forget_review(&self, review: &str) {
        self.given().reviews.remove(review);
    }

    /// A link the window asks to open: a help link it was shown, else `bad_input`.
    pub fn help_link(&self, url: &str) -> Result<(), ApiError> {
        self.given().help_links.contains(url).then_some(()).ok_or_else(|| {
            refused(HostCode::BadInput, format!("{url} is no help link of a plugin's setting shown in the app"))
        })
    }

    fn given(&self) -> std::sync::MutexGuard<'_, Given> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn refused(code: HostCode, message: String) -> ApiError {
    ApiError::new(ErrorCode::Host(code), message)
}
