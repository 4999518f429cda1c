//! What extraction keeps and tries is bounded (issue 44): red-team inputs of many small parts
//! (here, fenced blocks) end in a typed outcome with a bounded list, never in memory or work
//! that grows with the input. `tests/bounds/redteam.py` makes the same inputs as large as a
//! measurement of peak memory needs (docs/limits.md has the figures); here they are a few
//! megabytes.

use serde_json::json;

use crate::common::{run_stdin, warned};

/// Fenced blocks count toward `--max-candidates` as the prose scan's regions do: past it the
/// rest are not tried, with a `candidates_capped` warning (1,600,000 blocks were all tried).
#[test]
fn fenced_blocks_count_toward_max_candidates() {
    let text = "Here are the values:\n".to_owned()
        + &(0..20_000)
            .map(|n| format!("```json\n{{\"n\":{n}}}\n```\n"))
            .collect::<String>();
    let r = run_stdin(&["extract", "--from", "text"], text.as_str());
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["source"]["kind"], "code_fence");
    assert_eq!(e["source"]["candidates"], 10_000);
    assert_eq!(e["data"], json!({"n": 9_999}));
    let capped = warned(&r, "candidates_capped");
    assert_eq!(
        capped,
        ["stopped after 10000 candidates (--max-candidates)"]
    );

    let r = run_stdin(
        &["extract", "--from", "text", "--max-candidates", "3"],
        text.as_str(),
    );
    assert_eq!(r.one()["data"], json!({"n": 2}), "{}", r.stdout);
    assert_eq!(warned(&r, "candidates_capped").len(), 1);
}
