//! How the binary is linked (build.rs): on Linux with glibc, a position-dependent executable, so that the
//! dynamic loader has no relative relocations to apply at every start.

/// The ELF file type of the built binary: 2 (`ET_EXEC`) for a position-dependent executable,
/// 3 (`ET_DYN`) for a PIE.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_binary_is_position_dependent_on_linux() {
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_sojx")).expect("the built binary");
    assert_eq!(&bytes[..4], b"\x7fELF", "an ELF file");
    let e_type = u16::from_le_bytes([bytes[16], bytes[17]]);
    if option_env!("SOJX_PIE") == Some("1") {
        assert_eq!(e_type, 3, "SOJX_PIE=1 keeps a PIE");
    } else if cfg!(target_feature = "crt-static") {
        assert_eq!(e_type, 3, "crt-static in RUSTFLAGS links a static PIE");
    } else {
        assert_eq!(
            e_type, 2,
            "build.rs links sojx without PIE (the loader's relocations cost ~90 page faults per start)"
        );
    }
}
