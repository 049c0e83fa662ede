//! A plugin's icon reaches the webview as a `data:` URL: the CSP allows
//! images from the app and `data:` only, and the UI needs no file access.

use base64::Engine;

/// The PNG bytes as a `data:image/png;base64,…` URL.
pub fn data_url(png: &[u8]) -> String {
    format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(png))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_bytes_are_a_png_data_url() {
        assert_eq!(super::data_url(&[0x89, b'P', b'N', b'G']), "data:image/png;base64,iVBORw==");
    }
}
