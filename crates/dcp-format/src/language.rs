//! The languages of §6 and §10: the ones a plugin may translate its texts
//! into and a player may choose for the app. One table: each language's
//! code (its spelling in a manifest, the profile, JSON and TypeScript) and
//! its name in English, which the AI is told (every model reads English).
//! What else is said per language (the door's message to the AI) matches
//! on [`Language`], so a new language is a compile error until it has its
//! words; the window names each language in itself with the system's own
//! data (`Intl.DisplayNames`), so that list needs no copy either.

crate::spelled! {
    /// A language of §10, English first: the fallback of every text.
    #[derive(Default)]
    pub enum Language {
        #[default]
        En => "en",
        Fr => "fr",
        De => "de",
        Es => "es",
        It => "it",
        Pt => "pt",
        Ja => "ja",
        Ru => "ru",
        Zh => "zh",
        Ko => "ko",
    }
}

impl Language {
    /// Its name in English, as the AI is told the player's language.
    pub fn english_name(self) -> &'static str {
        match self {
            Language::En => "English",
            Language::Fr => "French",
            Language::De => "German",
            Language::Es => "Spanish",
            Language::It => "Italian",
            Language::Pt => "Portuguese",
            Language::Ja => "Japanese",
            Language::Ru => "Russian",
            Language::Zh => "Chinese",
            Language::Ko => "Korean",
        }
    }

    /// Every code, for a refusal's words: `en, fr, de, …`.
    pub fn codes() -> String {
        Language::ALL.map(Language::as_str).join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codes_are_spelled_as_manifests_and_profiles_keep_them() {
        assert_eq!(Language::codes(), "en, fr, de, es, it, pt, ja, ru, zh, ko");
        assert_eq!(serde_json::to_value(Language::Ja).ok(), Some(serde_json::json!("ja")));
        assert_eq!(Language::parse("fr"), Some(Language::Fr));
        assert_eq!(Language::parse("nl"), None);
        assert_eq!(Language::default(), Language::En);
    }
}
