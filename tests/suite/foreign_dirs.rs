//! The solver never makes a run directory of a directory holding someone else's files, and
//! `--force` deletes only what the solver created.

use std::path::Path;

use bawo_games::game::bawo::{Bawo, BawoRules};
use bawo_solve::run::SolveConfig;
use bawo_solve::tier::Silent;

fn game() -> Bawo {
    Bawo::new(2, 16, BawoRules::parse("").unwrap()).unwrap()
}

fn cfg(out: &Path) -> SolveConfig {
    SolveConfig::new(6, out)
}

#[test]
fn a_non_empty_directory_that_is_no_run_is_refused_with_or_without_force() {
    // Regression: `solve --out H` accepted a directory of the user's, and a later `--force`
    // deleted the whole `H/work/` tree, the user's files in it included.
    let root = tempfile::tempdir().unwrap();
    let h = root.path().join("H");
    std::fs::create_dir_all(h.join("work/thesis")).unwrap();
    std::fs::write(h.join("work/thesis/chapter1.tex"), "precious").unwrap();
    for force in [false, true] {
        let mut c = cfg(&h);
        c.force = force;
        let e = bawo_solve::solve(&game(), &c, &Silent).unwrap_err();
        assert!(e.is_input(), "force={force}: {e}");
        assert!(e.to_string().contains("holds no bawo run"), "{e}");
    }
    assert!(!h.join("manifest.json").exists());
    assert_eq!(
        std::fs::read_to_string(h.join("work/thesis/chapter1.tex")).unwrap(),
        "precious"
    );
}

#[test]
fn force_deletes_only_what_the_solver_created() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("run");
    bawo_solve::solve(&game(), &cfg(&dir), &Silent).unwrap();
    // A file of the user's placed in the run's work folder afterwards.
    std::fs::create_dir_all(dir.join("work/notes")).unwrap();
    std::fs::write(dir.join("work/notes/todo.txt"), "keep").unwrap();
    let mut c = cfg(&dir);
    c.force = true;
    bawo_solve::solve(&game(), &c, &Silent).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("work/notes/todo.txt")).unwrap(),
        "keep"
    );
    // An empty directory is fine.
    let empty = root.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    bawo_solve::solve(&game(), &cfg(&empty), &Silent).unwrap();
}
