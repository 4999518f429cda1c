//! How the binary is linked (build.rs): on Linux with glibc, a position-independent executable
//! (the platform's default, so its image is randomized) whose relative relocations are packed
//! as DT_RELR when the linker and glibc here support it, so that the loader's work at every
//! start stays small.

#[cfg(all(
    target_os = "linux",
    target_env = "gnu",
    target_pointer_width = "64",
    target_endian = "little"
))]
mod elf {
    include!("elf.rs");

    #[test]
    fn the_binary_is_a_pie_with_packed_relocations_on_linux() {
        const DT_RELA: u64 = 7;
        let bytes = std::fs::read(env!("CARGO_BIN_EXE_sojx")).expect("the built binary");
        assert_eq!(
            elf_type(&bytes),
            Some(3),
            "sojx is a PIE (ET_DYN), as the platform builds it"
        );
        let tags = dynamic_tags(&bytes).expect("a readable ELF file");
        assert!(!tags.is_empty(), "a PIE has a dynamic section");
        if option_env!("SOJX_RELR_LINKED") == Some("1") {
            assert!(
                tags.contains(&DT_RELR),
                "build.rs links with -z pack-relative-relocs: the relative relocations are DT_RELR ({tags:?})"
            );
        } else {
            eprintln!(
                "startup: this linker or glibc gives no DT_RELR (or SOJX_RELR=0); the relocations stay RELA"
            );
            assert!(tags.contains(&DT_RELA) || tags.contains(&DT_RELR));
        }
    }
}
