//! JSON Pointer (RFC 6901) tokens, shared by the schema walks (`lint`, `lower`, `budget`).

/// JSON Pointer token escaping (RFC 6901): `~` as `~0`, `/` as `~1`.
pub fn escape(token: &str) -> String {
    if !token.contains(['~', '/']) {
        return token.to_owned();
    }
    token.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    #[test]
    fn tilde_first_then_slash() {
        assert_eq!(super::escape("a/b~c"), "a~1b~0c");
        assert_eq!(super::escape("~1"), "~01");
    }
}
