// Reading an ELF file's type and dynamic tags: shared by build.rs (its DT_RELR probe, through
// `include!`) and tests/cli/startup.rs. 64-bit little-endian ELF only; `None` for anything
// else or anything cut short.

/// The ELF file type (`e_type`): 2 (`ET_EXEC`) for a position-dependent executable, 3
/// (`ET_DYN`) for a PIE.
#[allow(dead_code)]
fn elf_type(bytes: &[u8]) -> Option<u16> {
    if bytes.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    Some(u16::from_le_bytes(bytes.get(16..18)?.try_into().ok()?))
}

/// The tags of the dynamic section (`PT_DYNAMIC`), up to `DT_NULL`.
fn dynamic_tags(bytes: &[u8]) -> Option<Vec<u64>> {
    elf_type(bytes)?;
    let u16_at = |at: usize| Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    let u64_at = |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
    let phoff = usize::try_from(u64_at(32)?).ok()?;
    let (phentsize, phnum) = (usize::from(u16_at(54)?), usize::from(u16_at(56)?));
    let mut tags = Vec::new();
    for i in 0..phnum {
        let ph = phoff.checked_add(i.checked_mul(phentsize)?)?;
        if u32_at(ph)? != 2 {
            continue; // not PT_DYNAMIC
        }
        let off = usize::try_from(u64_at(ph + 8)?).ok()?;
        let size = usize::try_from(u64_at(ph + 32)?).ok()?;
        for entry in (off..off.checked_add(size)?).step_by(16) {
            let tag = u64_at(entry)?;
            if tag == 0 {
                break;
            }
            tags.push(tag);
        }
    }
    Some(tags)
}

/// `DT_RELR`: relative relocations packed as bitmaps.
const DT_RELR: u64 = 36;
