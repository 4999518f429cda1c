//! The wrong-data corpus (issue 39): inputs that once gave exit 0 with data that was not the
//! agent's final answer — an event quoted inside the answer, a fragment of a broken value, a
//! stale attempt. Each topic is a folder of `tests/fixtures/wrong-data/` with its inputs and a
//! `cases.json` (the format of `tests/fixtures/producers/cases.json`, plus `item`, the issue's
//! item, and `why`). A case that expects exit 0 names the data, so the right answer is checked,
//! not only that some answer came out. The golden test pins every byte of each.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::{expect_mismatches, fixture, root, run_case};

/// Every case: its topic folder and its entry of `cases.json`.
pub fn cases() -> Vec<(PathBuf, Value)> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixture("wrong-data"))
        .expect("tests/fixtures/wrong-data")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut out = Vec::new();
    for dir in dirs {
        let text = std::fs::read_to_string(dir.join("cases.json"))
            .unwrap_or_else(|e| panic!("{}/cases.json: {e}", dir.display()));
        // Read exactly: serde_json's private number key is a key (issue 39, item 6).
        let Value::Array(listed) = sojx_core::json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}/cases.json: {e}", dir.display()))
        else {
            panic!("{}/cases.json: not a list", dir.display())
        };
        out.extend(listed.into_iter().map(|c| (dir.clone(), c)));
    }
    out
}

#[test]
fn every_wrong_data_case_gives_the_answer_or_a_typed_failure() {
    let cases = cases();
    assert!(cases.len() >= 15, "only {} wrong-data cases", cases.len());
    let mut failures = Vec::new();
    let mut files = std::collections::BTreeSet::new();
    for (dir, c) in &cases {
        let file = dir.join(c["file"].as_str().expect("file"));
        files.insert(file.clone());
        let x = &c["expect"];
        assert!(
            c["why"].is_string() && c["item"].is_u64(),
            "{}: a case says why and names its item",
            file.display()
        );
        assert!(
            x["exit_code"] != 0 || x.get("data").is_some(),
            "{}: a case that expects exit 0 names the data",
            file.display()
        );
        let r = run_case(&file, c);
        let why = expect_mismatches(&r, x);
        if !why.is_empty() {
            failures.push(format!(
                "{} {} ({}): {}",
                file.strip_prefix(root()).unwrap_or(&file).display(),
                c["args"],
                c["why"].as_str().unwrap_or(""),
                why.join("; ")
            ));
        }
    }
    // Every input has a case.
    for (dir, _) in &cases {
        for f in std::fs::read_dir(dir).expect("topic folder") {
            let f = f.expect("entry").path();
            if f.file_name().is_some_and(|n| n != "cases.json") && !files.contains(&f) {
                failures.push(format!("{}: no case in cases.json", f.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
