//! How the binary is linked (build.rs): on Linux with glibc, a position-independent executable
//! (the platform's default, so its image is randomized) whose relative relocations are packed
//! as DT_RELR when the linker and glibc here support it, so that the loader's work at every
//! start stays small.

/// The ELF file type (`e_type`) of a 64-bit little-endian ELF file: 2 (`ET_EXEC`) for a
/// position-dependent executable, 3 (`ET_DYN`) for a PIE.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn elf_type(bytes: &[u8]) -> u16 {
    assert_eq!(&bytes[..4], b"\x7fELF", "an ELF file");
    u16::from_le_bytes([bytes[16], bytes[17]])
}

/// The tags of the dynamic section (`PT_DYNAMIC`), up to `DT_NULL`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn dynamic_tags(bytes: &[u8]) -> Vec<u64> {
    let u16_at = |at: usize| u16::from_le_bytes(bytes[at..at + 2].try_into().unwrap());
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let to = |n: u64| usize::try_from(n).unwrap();
    let (phoff, phentsize, phnum) = (to(u64_at(32)), usize::from(u16_at(54)), u16_at(56));
    let mut tags = Vec::new();
    for i in 0..usize::from(phnum) {
        let ph = phoff + i * phentsize;
        if u32_at(ph) != 2 {
            continue; // not PT_DYNAMIC
        }
        let (off, size) = (to(u64_at(ph + 8)), to(u64_at(ph + 32)));
        for entry in (off..off + size).step_by(16) {
            let tag = u64_at(entry);
            if tag == 0 {
                break;
            }
            tags.push(tag);
        }
    }
    tags
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_binary_is_a_pie_with_packed_relocations_on_linux() {
    const DT_RELR: u64 = 36;
    const DT_RELA: u64 = 7;
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_sojx")).expect("the built binary");
    assert_eq!(
        elf_type(&bytes),
        3,
        "sojx is a PIE (ET_DYN), as the platform builds it"
    );
    let tags = dynamic_tags(&bytes);
    assert!(!tags.is_empty(), "a PIE has a dynamic section");
    if option_env!("SOJX_RELR_LINKED") == Some("1") {
        assert!(
            tags.contains(&DT_RELR),
            "build.rs links with -z pack-relative-relocs: the relative relocations are DT_RELR ({tags:?})"
        );
    } else {
        eprintln!(
            "startup: this linker or glibc has no DT_RELR (or SOJX_RELR=0); the relocations stay RELA"
        );
        assert!(tags.contains(&DT_RELA) || tags.contains(&DT_RELR));
    }
}
