//! Names: provider-safe tool and output names, and Rust identifier case conversion.

use proc_macro2::Ident;

/// Checks a name sent to providers (a tool or output-tool name) against
/// `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`; the error says what `kind` of name it is and gives
/// `example`.
pub fn check_provider_name(name: &str, kind: &str, example: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if first_ok && rest_ok && name.len() <= 64 {
        Ok(())
    } else {
        Err(format!(
            "invalid {kind} name {name:?}: providers accept 1 to 64 characters, letters, \
             digits, `_` and `-`, not starting with a digit or `-` (e.g. \"{example}\")"
        ))
    }
}

/// `get_weather` (or `r#get_weather`) → `GetWeather`; empty when the name has no letters
/// outside underscores.
pub fn upper_camel(ident: &Ident) -> String {
    let name = ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name);
    let mut camel = String::with_capacity(name.len());
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            camel.extend(first.to_uppercase());
            camel.push_str(chars.as_str());
        }
    }
    camel
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(name: &str) -> bool {
        check_provider_name(name, "tool", "get_weather").is_ok()
    }

    #[test]
    fn provider_names() {
        assert!(ok("get_weather"));
        assert!(ok("_x-1"));
        assert!(ok(&"a".repeat(64)));
        assert!(!ok(&"a".repeat(65)));
        assert!(!ok(""));
        assert!(!ok("1abc"));
        assert!(!ok("-abc"));
        assert!(!ok("get weather"));
        assert!(!ok("wetter_prüfen"));
    }

    #[test]
    fn camel_case() {
        let ident = |s: &str| Ident::new(s, proc_macro2::Span::call_site());
        assert_eq!(upper_camel(&ident("get_weather")), "GetWeather");
        assert_eq!(upper_camel(&ident("__x__y")), "XY");
        assert_eq!(
            upper_camel(&Ident::new_raw("type", proc_macro2::Span::call_site())),
            "Type"
        );
    }
}
