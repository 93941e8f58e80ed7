//! Datasets: built in code, loaded from YAML and JSON files, and every way a file can be
//! wrong, each an error naming the file, the case and the field.

use std::path::{Path, PathBuf};

use agentry::eval::{Case, Dataset, DatasetError};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Trip {
    city: String,
    days: u32,
}

type Trips = Dataset<Trip, Trip>;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/eval")
        .join(name)
}

/// Writes `text` to a file named `name` in a fresh folder (kept alive by the caller).
fn file(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write the dataset");
    (dir, path)
}

#[test]
fn a_yaml_file_loads_with_expected_outputs_and_metadata() {
    let dataset = Trips::from_file(fixture("trips.yaml")).unwrap();
    assert_eq!(dataset.name(), "trips");
    assert_eq!(dataset.len(), 2);
    let lisbon = &dataset.cases()[0];
    assert_eq!(lisbon.name, "lisbon");
    assert_eq!(
        lisbon.input,
        Trip {
            city: "Lisbon".into(),
            days: 2
        }
    );
    assert_eq!(lisbon.expected, Some(lisbon.input.clone()));
    assert_eq!(
        lisbon.metadata["tools"],
        json!(["get_weather", "find_activities"])
    );
    let oslo = &dataset.cases()[1];
    assert_eq!(oslo.name, "oslo in winter");
    assert_eq!(oslo.expected, None);
    assert!(oslo.metadata.is_empty());
}

#[test]
fn a_json_list_of_cases_loads_and_takes_the_file_stem_as_its_name() {
    let (_dir, path) = file(
        "smoke.json",
        r#"[{ "name": "one", "input": { "city": "Paris", "days": 1 } }]"#,
    );
    let dataset = Trips::from_file(&path).unwrap();
    assert_eq!(dataset.name(), "smoke");
    assert_eq!(dataset.cases()[0].input.city, "Paris");
}

#[test]
fn a_dataset_saved_as_json_loads_back_the_same() {
    let dataset = Trips::new("built")
        .case(
            Case::new(
                "a",
                Trip {
                    city: "Porto".into(),
                    days: 3,
                },
            )
            .expect(Trip {
                city: "Porto".into(),
                days: 3,
            })
            .meta("difficulty", "hard"),
        )
        .case(Case::new(
            "b",
            Trip {
                city: "Faro".into(),
                days: 1,
            },
        ));
    let text = serde_json::to_string(&dataset).unwrap();
    assert_eq!(Trips::from_json_str(&text).unwrap(), dataset);
}

#[test]
fn a_field_of_the_wrong_type_names_the_file_the_case_and_the_field() {
    let err = Trips::from_file(fixture("bad_field.json")).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("bad_field.json"), "{text}");
    assert!(
        text.contains("case 2 (`rome`): at `input.days`: invalid type: string \"two\""),
        "{text}"
    );
    let DatasetError::InFile { error, .. } = err else {
        panic!("not an error in a file: {err:?}")
    };
    match *error {
        DatasetError::Case {
            index, case, field, ..
        } => {
            assert_eq!(index, 1);
            assert_eq!(case.as_deref(), Some("rome"));
            assert_eq!(field, "input.days");
        }
        other => panic!("not a case error: {other:?}"),
    }
}

#[test]
fn a_yaml_case_error_names_the_case_and_the_nested_field() {
    let err = Trips::from_yaml_str(
        "cases:\n  - name: ok\n    input: {city: Rome, days: 1}\n  - name: negative\n    input: {city: Rome, days: 1}\n    expected: {city: Rome, days: -1}\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("case 2 (`negative`): at `expected.days`: invalid value: integer `-1`"),
        "{err}"
    );
    let err = Trips::from_yaml_str("- name: no city\n  input: {days: 1}\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("case 1 (`no city`): at `input`: missing field `city`"),
        "{err}"
    );
}

#[test]
fn an_unknown_case_key_is_refused_so_typos_do_not_pass_silently() {
    let err = Trips::from_yaml_str(
        "- name: typo\n  input: {city: Rome, days: 1}\n  expcted: {city: Rome, days: 1}\n",
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("case 1 (`typo`)"), "{err}");
    assert!(err.contains("unknown field `expcted`"), "{err}");
}

#[test]
fn a_case_without_a_name_is_an_error_numbered_by_its_position() {
    let err = Trips::from_json_str(r#"[{"input": {"city": "Rome", "days": 1}}]"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("case 1 (`unnamed`)"), "{err}");
    assert!(err.contains("missing field `name`"), "{err}");
}

#[test]
fn two_cases_with_one_name_are_refused() {
    let err = Trips::from_json_str(
        r#"[{"name": "x", "input": {"city": "A", "days": 1}}, {"name": "x", "input": {"city": "B", "days": 2}}]"#,
    )
    .unwrap_err();
    assert!(
        matches!(err, DatasetError::DuplicateName(ref n) if n == "x"),
        "{err:?}"
    );
    let mut dataset = Trips::new("d");
    let trip = Trip {
        city: "A".into(),
        days: 1,
    };
    dataset.push(Case::new("x", trip.clone())).unwrap();
    assert!(dataset.push(Case::new("x", trip)).is_err());
    assert_eq!(dataset.len(), 1);
}

#[test]
fn syntax_errors_give_the_line() {
    let (_dir, path) = file("broken.yaml", "cases:\n  - name: a\n    input: [unclosed\n");
    let err = Trips::from_file(&path).unwrap_err().to_string();
    assert!(err.contains("broken.yaml"), "{err}");
    assert!(err.contains("not valid YAML"), "{err}");
    assert!(err.contains("line"), "{err}");

    let err = Trips::from_json_str("{\"cases\": [\n  {\"name\": }\n]}")
        .unwrap_err()
        .to_string();
    assert!(err.contains("not valid JSON"), "{err}");
    assert!(err.contains("line 2"), "{err}");
}

#[test]
fn a_document_of_the_wrong_shape_says_what_it_is() {
    let cases = [
        ("42", "the document is a number"),
        ("{\"name\": \"x\"}", "there is no `cases` list"),
        ("{\"cases\": {}}", "`cases` is an object, not a list"),
        ("{\"name\": 3, \"cases\": []}", "`name` is a number"),
        ("{\"cases\": [], \"extra\": 1}", "unknown key `extra`"),
    ];
    for (text, want) in cases {
        let err = Trips::from_json_str(text).unwrap_err();
        assert!(matches!(err, DatasetError::Shape(_)), "{text}: {err:?}");
        assert!(err.to_string().contains(want), "{text}: {err}");
    }
}

#[test]
fn missing_files_and_unknown_extensions_are_errors() {
    let err = Trips::from_file(fixture("nope.yaml")).unwrap_err();
    assert!(matches!(err, DatasetError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("nope.yaml"), "{err}");
    let (_dir, path) = file("cases.toml", "");
    let err = Trips::from_file(&path).unwrap_err();
    assert!(matches!(err, DatasetError::UnknownFormat { .. }), "{err:?}");
}
