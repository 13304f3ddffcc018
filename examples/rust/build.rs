// Links libmemplan_c from an installed memplan. MEMPLAN_LIB_DIR names the folder holding
// libmemplan_c.so; else MEMPLAN_PREFIX names the install prefix (its lib, lib64 or
// lib/<multiarch> folder is searched); else the linker's default paths are used. The folder is
// also recorded as the binary's run path, so the example runs without LD_LIBRARY_PATH.
use std::env;
use std::fs;
use std::path::{Path, PathBuf};

const LIBRARY: &str = "libmemplan_c.so";

fn find_in_prefix(prefix: &Path) -> Option<PathBuf> {
    let mut candidates = vec![prefix.join("lib"), prefix.join("lib64")];
    if let Ok(entries) = fs::read_dir(prefix.join("lib")) {
        candidates.extend(entries.flatten().map(|e| e.path()));  // lib/x86_64-linux-gnu, ...
    }
    candidates.into_iter().find(|dir| dir.join(LIBRARY).exists())
}

fn main() {
    println!("cargo:rerun-if-env-changed=MEMPLAN_LIB_DIR");
    println!("cargo:rerun-if-env-changed=MEMPLAN_PREFIX");
    let lib_dir = if let Some(dir) = env::var_os("MEMPLAN_LIB_DIR") {
        Some(PathBuf::from(dir))
    } else if let Some(prefix) = env::var_os("MEMPLAN_PREFIX") {
        let prefix = PathBuf::from(prefix);
        match find_in_prefix(&prefix) {
            Some(dir) => Some(dir),
            None => panic!("MEMPLAN_PREFIX={}: no {} in its lib folders (install memplan there first)",
                           prefix.display(), LIBRARY),
        }
    } else {
        println!("cargo:warning=neither MEMPLAN_LIB_DIR nor MEMPLAN_PREFIX is set: linking memplan_c from the default paths");
        None
    };
    if let Some(dir) = lib_dir {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    }
    println!("cargo:rustc-link-lib=dylib=memplan_c");
}
