//! The one integration test binary (see Cargo.toml `[[test]]`).
