//! The invariant "only the writer does IO", checked mechanically: no other source file of the
//! crate names the file system, processes, threads, the clock or standard streams.

/// What a pure file must not name (`std::io::Error` is allowed: the error type carries one).
const BANNED: [&str; 12] = [
    "std::fs",
    "std::process",
    "std::thread",
    "std::time",
    "std::env",
    "std::net",
    "std::io::{",
    "std::io::Read",
    "std::io::Write",
    "std::io::std",
    "print!",
    "println!",
];

#[test]
fn only_the_writer_touches_the_outside_world() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut checked = 0;
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "writer.rs" || name == "tests.rs" || !name.ends_with(".rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for banned in BANNED {
            assert!(
                !text.contains(banned),
                "{name} uses {banned}; only writer.rs may do IO"
            );
        }
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} files checked");
}
