//! Where generated code finds the runtime crate, resolved in one place.
//!
//! The answer is the name the user's crate gives `agentry` in its `Cargo.toml` (`::agentry`,
//! or `::my_sdk` for `my_sdk = { package = "agentry", .. }`). It is read from the crate's own
//! manifest, once per manifest and compiler process: `proc_macro_crate::crate_name` asks
//! `cargo locate-project` for the workspace manifest the first time it is called in a process,
//! a child process costing ~15 ms of every rebuild of a crate using the macros. It is still
//! asked when the crate's own manifest cannot say: a dependency inherited from the workspace
//! (`x = { workspace = true }`, which the workspace may rename), or none naming `agentry`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use proc_macro2::{Span, TokenStream};
use quote::quote;

/// The path of the `agentry` crate as the user's crate sees it: `::agentry`, or the name
/// it was renamed to in the user's `Cargo.toml`. Inside `agentry` itself (its unit tests,
/// doc tests and integration tests) `::agentry` resolves through `extern crate self as
/// agentry`.
pub fn sdk_path() -> TokenStream {
    let ident = syn::Ident::new(&sdk_name(), Span::call_site());
    quote!(::#ident)
}

/// `sdk_path()` as a string, for `#[serde(crate = "...")]`-style attributes.
pub fn sdk_path_string() -> String {
    format!("::{}", sdk_name())
}

/// The crate name, remembered per manifest while the manifest is unchanged (a long-lived
/// process such as rust-analyzer's macro server expands for many crates and edits).
fn sdk_name() -> String {
    static KNOWN: Mutex<Option<HashMap<PathBuf, Known>>> = Mutex::new(None);
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        return "agentry".to_string();
    };
    let manifest = PathBuf::from(dir).join("Cargo.toml");
    let modified = std::fs::metadata(&manifest).and_then(|m| m.modified()).ok();
    let mut known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
    let known = known.get_or_insert_with(HashMap::new);
    if let Some((at, name)) = known.get(&manifest)
        && *at == modified
    {
        return name.clone();
    }
    let name = std::fs::read_to_string(&manifest)
        .ok()
        .and_then(|text| from_manifest(&text))
        .unwrap_or_else(from_proc_macro_crate);
    known.insert(manifest, (modified, name.clone()));
    name
}

/// A manifest's modification time when it was read, and the name it gave.
type Known = (Option<SystemTime>, String);

/// What `proc_macro_crate` finds (the workspace manifest included).
fn from_proc_macro_crate() -> String {
    use proc_macro_crate::{FoundCrate, crate_name};
    match crate_name("agentry") {
        Ok(FoundCrate::Name(name)) => name,
        Ok(FoundCrate::Itself) | Err(_) => "agentry".to_string(),
    }
}

/// The name a manifest gives `agentry`: the key of the dependency whose `package` is
/// `agentry`, else `agentry` when a dependency has that key or the package is `agentry`
/// itself. `None` when only the workspace manifest could tell.
fn from_manifest(text: &str) -> Option<String> {
    let doc: toml_edit::DocumentMut = text.parse().ok()?;
    if doc
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        == Some("agentry")
    {
        return Some("agentry".to_string());
    }
    const KINDS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    let mut tables: Vec<&toml_edit::Item> = KINDS.iter().filter_map(|k| doc.get(k)).collect();
    if let Some(targets) = doc.get("target").and_then(|t| t.as_table_like()) {
        for (_, target) in targets.iter() {
            tables.extend(KINDS.iter().filter_map(|k| target.get(k)));
        }
    }
    let mut direct = false;
    for (key, dependency) in tables
        .iter()
        .filter_map(|t| t.as_table_like())
        .flat_map(|t| t.iter())
    {
        let package = dependency
            .as_table_like()
            .and_then(|d| d.get("package"))
            .and_then(|p| p.as_str());
        match package {
            Some("agentry") => return Some(key.replace('-', "_")),
            None if key == "agentry" => direct = true,
            _ => {}
        }
    }
    direct.then(|| "agentry".to_string())
}

#[cfg(test)]
mod tests {
    use super::from_manifest;

    #[test]
    fn a_plain_dependency_is_agentry() {
        let manifest = "[package]\nname = \"app\"\n[dependencies]\nagentry = \"0.1\"\n";
        assert_eq!(from_manifest(manifest).as_deref(), Some("agentry"));
        let inherited = "[dependencies]\nagentry = { workspace = true }\n";
        assert_eq!(from_manifest(inherited).as_deref(), Some("agentry"));
        let dev = "[dev-dependencies.agentry]\nversion = \"0.1\"\n";
        assert_eq!(from_manifest(dev).as_deref(), Some("agentry"));
    }

    #[test]
    fn a_renamed_dependency_is_its_key() {
        let manifest = "[dependencies]\nmy-sdk = { package = \"agentry\", version = \"0.1\" }\n";
        assert_eq!(from_manifest(manifest).as_deref(), Some("my_sdk"));
        let target =
            "[target.'cfg(unix)'.dependencies]\nai = { package = \"agentry\", path = \"x\" }\n";
        assert_eq!(from_manifest(target).as_deref(), Some("ai"));
    }

    #[test]
    fn the_package_itself_is_agentry() {
        let manifest = "[package]\nname = \"agentry\"\n[dependencies]\nserde = \"1\"\n";
        assert_eq!(from_manifest(manifest).as_deref(), Some("agentry"));
    }

    #[test]
    fn only_the_workspace_can_tell_otherwise() {
        // `ai = { workspace = true }` may be `agentry` renamed in the workspace's table.
        let manifest = "[dependencies]\nai = { workspace = true }\n";
        assert_eq!(from_manifest(manifest), None);
        assert_eq!(from_manifest("not toml ["), None);
    }
}
