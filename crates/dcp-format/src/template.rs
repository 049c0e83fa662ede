//! Templates (spec §8, §11): `{{name}}` for an argument, `{{config.name}}`
//! for a setting, `{{secret.name}}` for a secret (auth only).
//!
//! This module only reads the syntax; which names a template may use where
//! is the validator's business, and filling one in is the request builder's.

use serde::Serialize;

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Piece {
    /// Fixed text.
    Text(String),
    /// `{{name}}`: an argument chosen by the AI.
    Arg(String),
    /// `{{config.name}}`: a non-secret setting.
    Config(String),
    /// `{{secret.name}}`: a secret setting.
    Secret(String),
}

/// A text with placeholders, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(transparent)]
pub struct Template(pub Vec<Piece>);

impl Template {
    /// Reads a template; the error says what is wrong with a placeholder.
    pub fn parse(text: &str) -> Result<Template, String> {
        let mut pieces = Vec::new();
        let mut rest = text;
        while let Some(start) = rest.find("{{") {
            if start > 0 {
                pieces.push(Piece::Text(rest[..start].to_owned()));
            }
            let after = &rest[start + 2..];
            let end = after.find("}}").ok_or_else(|| format!("\"{{{{\" is never closed in \"{text}\""))?;
            pieces.push(placeholder(&after[..end])?);
            rest = &after[end + 2..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest.to_owned()));
        }
        Ok(Template(pieces))
    }

    /// The placeholder, when the template is exactly one placeholder and
    /// nothing else (§8: such a value keeps its type, and an absent argument
    /// leaves the entry out).
    pub fn lone_placeholder(&self) -> Option<&Piece> {
        match self.0.as_slice() {
            [piece] if !matches!(piece, Piece::Text(_)) => Some(piece),
            _ => None,
        }
    }

    /// The placeholders, in order.
    pub fn placeholders(&self) -> impl Iterator<Item = &Piece> {
        self.0.iter().filter(|p| !matches!(p, Piece::Text(_)))
    }

    /// True when the template has no placeholder.
    pub fn is_fixed(&self) -> bool {
        self.placeholders().next().is_none()
    }
}

impl std::fmt::Display for Template {
    /// The template as a manifest writes it (`Bearer {{secret.token}}`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for piece in &self.0 {
            match piece {
                Piece::Text(text) => f.write_str(text)?,
                Piece::Arg(name) => write!(f, "{{{{{name}}}}}")?,
                Piece::Config(name) => write!(f, "{{{{config.{name}}}}}")?,
                Piece::Secret(name) => write!(f, "{{{{secret.{name}}}}}")?,
            }
        }
        Ok(())
    }
}

fn placeholder(inner: &str) -> Result<Piece, String> {
    let (make, name): (fn(String) -> Piece, &str) = match inner.split_once('.') {
        None => (Piece::Arg, inner),
        Some(("config", name)) => (Piece::Config, name),
        Some(("secret", name)) => (Piece::Secret, name),
        Some(_) => return Err(format!("{{{{{inner}}}}} is not a placeholder: use {{{{argument}}}}, {{{{config.setting}}}} or {{{{secret.setting}}}}")),
    };
    if !is_identifier(name) {
        return Err(format!("{{{{{inner}}}}} does not name an argument or setting (a letter, then letters, digits or _, without spaces)"));
    }
    Ok(make(name.to_owned()))
}

/// The name rule shared by arguments and settings (§7, §10): a letter, then
/// letters, digits or `_`, 31 characters at most.
pub fn is_identifier(name: &str) -> bool {
    let bytes = name.as_bytes();
    (1..=crate::limits::SETTING_KEY_CHARS).contains(&bytes.len())
        && bytes[0].is_ascii_alphabetic()
        && bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// A request value (§8): fixed JSON, or text that may hold placeholders.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum ValueTemplate {
    /// A number, boolean or other fixed JSON value.
    Fixed(serde_json::Value),
    /// A string, possibly with placeholders.
    Text(Template),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s8_reads_each_kind_of_placeholder() {
        let t = Template::parse("Added by {{config.owner}} for {{title}} with {{secret.key}}").expect("valid");
        assert_eq!(
            t.0,
            vec![
                Piece::Text("Added by ".into()),
                Piece::Config("owner".into()),
                Piece::Text(" for ".into()),
                Piece::Arg("title".into()),
                Piece::Text(" with ".into()),
                Piece::Secret("key".into()),
            ]
        );
        assert!(t.lone_placeholder().is_none());
        assert_eq!(
            t.to_string(),
            "Added by {{config.owner}} for {{title}} with {{secret.key}}",
            "written back as read"
        );
        assert_eq!(Template::parse("{{x}}").expect("valid").lone_placeholder(), Some(&Piece::Arg("x".into())));
    }

    #[test]
    fn s8_refuses_malformed_placeholders() {
        for bad in ["{{", "a {{b", "{{}}", "{{ name }}", "{{env.HOME}}", "{{config.}}", "{{1abc}}", "{{a-b}}"] {
            assert!(Template::parse(bad).is_err(), "{bad}");
        }
        assert!(Template::parse("plain } text { here }}").expect("valid").is_fixed());
    }
}
