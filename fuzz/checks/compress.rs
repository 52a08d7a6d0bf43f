//! `extract` with `compress` over a repository of up to three files, end to end as the server
//! runs it (redaction, parse budget, skeletons, graded budget, exact count): the first byte sets
//! the budget and the level, the rest is split on 0xFF into files, each file's first byte
//! picking its language. The prompt never exceeds its budget, its count is exact to what it holds, and
//! every file is shown whole, as a skeleton, or listed as left out.

use super::language;
use gnaw::spec::{ExtractionSpec, Mode, Overrides, Policy};
use gnaw::vocab::Compress;
use gnaw_sandbox::Root;

pub fn check(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let budget = match first % 4 {
        0 => None,
        n => Some(200 * usize::from(n) + usize::from(first)),
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut written = 0;
    for (i, part) in rest.split(|&b| b == 0xFF).take(3).enumerate() {
        let Some((&which, text)) = part.split_first() else {
            continue;
        };
        let (_, ext) = language(which);
        std::fs::write(dir.path().join(format!("f{i}.{ext}")), text).expect("write");
        written += 1;
    }
    let root = Root::new(dir.path(), false).expect("root");
    let spec = ExtractionSpec {
        repo: root.as_dir(),
        overrides: Overrides {
            compress: Some(Compress::ALL[usize::from(first / 4) % Compress::ALL.len()]),
            budget: Some(budget.unwrap_or(0)),
            ..Default::default()
        },
        paths: None,
        mode: Mode::Render,
        observer: None,
        policy: Policy::server(),
        cache: None,
    };
    let ex = gnaw::run_extraction(&spec).expect("extraction answers");
    let output = ex.output.as_deref().expect("rendered");
    if let Some(b) = budget {
        assert!(ex.tokens <= b, "{} tokens over the budget {b}", ex.tokens);
    }
    let counted = gnaw::count::count(ex.encoding, output);
    assert_eq!(counted, ex.tokens, "the count is not the prompt's");
    assert_eq!(
        ex.files.len() + ex.skipped.len() + ex.omitted.len(),
        written,
        "a file is neither shown nor listed"
    );
    if let Some(reason) = &ex.not_parsed {
        super::assert_not_a_panic(reason);
    }
}
