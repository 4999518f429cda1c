//! The envelope's vocabularies, each spelled once. [`wire_enum!`] makes an enum whose variants
//! each carry their wire name: `as_str`, `parse`, `Display` and `Serialize` all read that one
//! spelling. [`Command`] is the envelope's `command`; the other vocabularies live with their
//! types (`ErrorKind` and `Operation` in `error.rs`, `WarningKind` in `warning.rs`,
//! `SourceKind` in `producer/`).

/// An enum of names, each written once as its wire spelling:
///
/// ```ignore
/// wire_enum! {
///     /// Docs.
///     pub enum Color { Red = "red", DarkBlue = "dark_blue" }
/// }
/// ```
///
/// gives `Color::as_str`, `Color::parse` (the wire name back to the variant), `Color::ALL`,
/// `Display` (the wire name) and `Serialize` (the wire name, as a string).
#[macro_export]
#[doc(hidden)]
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every name, in declaration order.
            #[allow(dead_code)]
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The wire name.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( Self::$variant => $wire ),+
                }
            }

            /// The variant whose wire name is `s`.
            #[allow(dead_code)]
            pub fn parse(s: &str) -> Option<Self> {
                match s {
                    $( $wire => Some(Self::$variant), )+
                    _ => None,
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}
#[doc(hidden)]
pub use crate::wire_enum;

wire_enum! {
    /// The envelope's `command`: the subcommand that made it, or `sojx` for a usage error
    /// before any subcommand was named.
    pub enum Command {
        Extract = "extract",
        Run = "run",
        Validate = "validate",
        Compare = "compare",
        Lint = "lint",
        Compile = "compile",
        Producers = "producers",
        /// A usage error before a subcommand was named (or of the hidden `generate`, which
        /// prints no envelope of its own).
        Sojx = "sojx",
    }
}

impl Command {
    /// Whether this command's input is a schema (`lint`, `compile`): what they find wrong in
    /// it is the input's failure, not the caller's.
    pub fn reads_a_schema(self) -> bool {
        matches!(self, Self::Lint | Self::Compile)
    }

    /// The subcommand named `s` on a command line (`sojx` is not one).
    pub fn subcommand(s: &str) -> Option<Self> {
        Self::parse(s).filter(|c| *c != Self::Sojx)
    }
}

#[cfg(test)]
mod tests {
    use super::Command;

    #[test]
    fn a_name_reads_back_as_its_variant() {
        for c in Command::ALL {
            assert_eq!(Command::parse(c.as_str()), Some(*c));
            assert_eq!(c.to_string(), c.as_str());
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
        }
        assert_eq!(Command::parse("Extract"), None);
        assert_eq!(Command::subcommand("sojx"), None);
        assert_eq!(Command::subcommand("run"), Some(Command::Run));
    }
}
