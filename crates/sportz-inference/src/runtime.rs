//! Finding and loading the ONNX Runtime shared library, once per process.
//!
//! `ort` is built with `load-dynamic`: the library is the one `scripts/setup` unpacks from the
//! PyPI wheel into `<workspace>/.cache/onnxruntime/<version>/`. It is found from
//! `ORT_DYLIB_PATH` when set, otherwise by searching that folder above the executable, above
//! `CARGO_MANIFEST_DIR` (run time, then build time) and above the current directory.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ort::environment::Environment;

use crate::InferenceError;

#[cfg(target_os = "windows")]
const LIB_PREFIX: &str = "onnxruntime.dll";
#[cfg(target_os = "macos")]
const LIB_PREFIX: &str = "libonnxruntime";
#[cfg(not(any(target_os = "windows", target_os = "macos")))]
const LIB_PREFIX: &str = "libonnxruntime.so";

/// The ONNX Runtime library file under `root/.cache/onnxruntime/*/`, newest version folder
/// first.
fn find_in(root: &Path) -> Option<PathBuf> {
    let base = root.join(".cache").join("onnxruntime");
    let mut versions: Vec<PathBuf> = std::fs::read_dir(&base)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    versions.sort_by_key(|p| version_key(p));
    versions.reverse();
    versions.into_iter().find_map(|dir| {
        let mut libs: Vec<PathBuf> = std::fs::read_dir(&dir)
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(LIB_PREFIX))
            })
            .collect();
        // the longest name is the fully versioned file (libonnxruntime.so.1.32.0)
        libs.sort_by_key(|p| p.as_os_str().len());
        libs.pop()
    })
}

/// `1.32.0` → `[1, 32, 0]` for ordering version folders numerically.
fn version_key(p: &Path) -> Vec<u64> {
    p.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .split('.')
        .map(|s| s.parse().unwrap_or(0))
        .collect()
}

/// Folders whose ancestors may hold the workspace's `.cache/onnxruntime`.
fn search_roots() -> Vec<PathBuf> {
    let mut starts = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        starts.push(exe);
    }
    if let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") {
        starts.push(PathBuf::from(dir));
    }
    starts.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    if let Ok(cwd) = std::env::current_dir() {
        starts.push(cwd);
    }
    let mut roots: Vec<PathBuf> = Vec::new();
    for start in starts {
        for dir in start.ancestors() {
            if !roots.iter().any(|r| r == dir) {
                roots.push(dir.to_path_buf());
            }
        }
    }
    roots
}

/// Where the ONNX Runtime library is, or why it cannot be found.
///
/// # Errors
/// `ORT_DYLIB_PATH` names a missing file, or no library is found (run `scripts/setup`).
pub fn library_path() -> Result<PathBuf, InferenceError> {
    if let Some(p) = std::env::var_os("ORT_DYLIB_PATH").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(InferenceError::Runtime(format!(
                "ORT_DYLIB_PATH={} is not a file; unset it or run scripts/setup",
                p.display()
            )))
        };
    }
    let roots = search_roots();
    roots.iter().find_map(|r| find_in(r)).ok_or_else(|| {
        InferenceError::Runtime(format!(
            "the ONNX Runtime library was not found: run scripts/setup (it unpacks \
             {LIB_PREFIX}* into <workspace>/.cache/onnxruntime/<version>/) or set ORT_DYLIB_PATH; \
             searched .cache/onnxruntime under {} folders from {}",
            roots.len(),
            roots
                .first()
                .map_or_else(|| "nowhere".into(), |p| p.display().to_string())
        ))
    })
}

static ENVIRONMENT: OnceLock<Result<(Environment, PathBuf), String>> = OnceLock::new();

/// The process's one ONNX Runtime environment (ONNX Runtime allows one per process), loading
/// the library on first use.
///
/// # Errors
/// The library cannot be found or loaded, or the environment cannot be created; the same
/// error is returned on every later call.
pub fn environment() -> Result<&'static Environment, InferenceError> {
    ENVIRONMENT
        .get_or_init(|| {
            let path = library_path().map_err(|e| e.to_string())?;
            let builder = ort::init_from(&path).map_err(|e| {
                format!(
                    "cannot load the ONNX Runtime library {}: {e} (run scripts/setup)",
                    path.display()
                )
            })?;
            let env = builder
                .with_name("sportz")
                .build()
                .map_err(|e| format!("cannot create the ONNX Runtime environment: {e}"))?;
            tracing::info!(library = %path.display(), "ONNX Runtime loaded");
            Ok((env, path))
        })
        .as_ref()
        .map(|(env, _)| env)
        .map_err(|e| InferenceError::Runtime(e.clone()))
}

/// The library file the environment was loaded from, once loaded.
#[must_use]
pub fn loaded_library() -> Option<&'static Path> {
    ENVIRONMENT
        .get()
        .and_then(|r| r.as_ref().ok())
        .map(|(_, p)| p.as_path())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_folders_sort_numerically() {
        let mut v = [
            PathBuf::from("x/1.9.0"),
            PathBuf::from("x/1.32.0"),
            PathBuf::from("x/1.22.1"),
        ];
        v.sort_by_key(|p| version_key(p));
        assert_eq!(v.last().unwrap(), &PathBuf::from("x/1.32.0"));
    }

    #[test]
    fn the_library_is_found_in_a_cache_folder() {
        let dir = std::env::temp_dir().join(format!("sportz-ort-find-{}", std::process::id()));
        let lib_dir = dir.join(".cache/onnxruntime/1.32.0");
        std::fs::create_dir_all(&lib_dir).unwrap();
        assert_eq!(
            find_in(&dir),
            None,
            "an empty version folder holds no library"
        );
        let lib = lib_dir.join(format!("{LIB_PREFIX}.1.32.0"));
        std::fs::write(&lib, b"").unwrap();
        assert_eq!(find_in(&dir), Some(lib));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
