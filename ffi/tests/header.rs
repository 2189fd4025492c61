//! The committed C header is what cbindgen generates from the crate now: it fails when an ABI
//! change was not regenerated (`POGO_BLESS=1 cargo test -p pogo-ffi --test header` rewrites
//! it), so `include/pogo.h` is never stale and never edited by hand.

use std::path::PathBuf;

#[test]
fn the_committed_header_is_what_cbindgen_generates() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).unwrap();
    let bindings = cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).unwrap();
    let path = crate_dir.join("include/pogo.h");
    if std::env::var_os("POGO_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let line = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or(
                committed.lines().count().min(generated.lines().count()),
                |l| l,
            )
            + 1;
        panic!(
            "include/pogo.h is stale (first difference at line {line}); regenerate it with \
             POGO_BLESS=1 cargo test -p pogo-ffi --test header"
        );
    }
}
