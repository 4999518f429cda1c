//! A [`Doc`] as the `jsonschema` crate reads instances: the `json` traits, over the items.

use std::borrow::Cow;

use jsonschema::JsonType;
use jsonschema::json::{Array, Json, JsonNumber, Node, NodeIdentity, Object, cmp};
use serde_json::Value;

use super::{Doc, Item};

/// The `jsonschema` representation of a [`Doc`].
pub struct TapeJson;

/// A node of a [`Doc`].
#[derive(Debug, Clone, Copy)]
pub struct TapeNode<'a> {
    pub(super) doc: &'a Doc<'a>,
    pub(super) at: u32,
}

impl TapeNode<'_> {
    fn item(&self) -> Item {
        self.doc
            .items
            .get(self.at as usize)
            .copied()
            .unwrap_or(Item::Null)
    }
}

/// The storage of a node made from a property name.
#[derive(Debug, Default)]
pub struct NameBuffer {
    text: String,
}

impl Json for TapeJson {
    type Node<'a> = TapeNode<'a>;
    type PreparedKey = Box<str>;
    type StringBuffer = NameBuffer;

    // A lookup is a scan of the members, so a pass over them is never dearer than a few.
    const KEYS_PER_LOOKUP: usize = 8;

    fn prepare_key(key: &str) -> Box<str> {
        key.into()
    }

    fn with_string_node<T>(
        buffer: &mut NameBuffer,
        string: &str,
        f: impl FnOnce(TapeNode<'_>) -> T,
    ) -> T {
        buffer.text.clear();
        buffer.text.push_str(string);
        let items = [Item::Str {
            at: 0,
            len: u32::try_from(string.len()).unwrap_or(0),
            own: true,
        }];
        let doc = Doc {
            items: &items,
            src: "",
            text: &buffer.text,
            plain: true,
        };
        f(TapeNode { doc: &doc, at: 0 })
    }
}

/// A number's literal.
#[derive(Debug, Clone, Copy)]
pub struct TapeNumber<'a>(&'a str);

impl JsonNumber for TapeNumber<'_> {
    // As serde_json's own `Number` with `arbitrary_precision`, which holds the literal.
    fn as_u64(&self) -> Option<u64> {
        self.0.parse().ok()
    }
    fn as_i64(&self) -> Option<i64> {
        self.0.parse().ok()
    }
    fn as_f64(&self) -> Option<f64> {
        self.0.parse::<f64>().ok().filter(|f| f.is_finite())
    }
    fn as_str(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.0)
    }
    fn to_number(&self) -> Cow<'_, serde_json::Number> {
        Cow::Owned(
            self.0
                .parse()
                .unwrap_or_else(|_| serde_json::Number::from(0u8)),
        )
    }
    fn is_integer(&self) -> bool {
        // A literal without a point is an integer; the rest is the crate's decision.
        !self.0.contains('.') || JsonNumber::is_integer(&*self.to_number())
    }
}

impl<'a> Node<'a, TapeJson> for TapeNode<'a> {
    type Object = TapeObject<'a>;
    type Array = TapeArray<'a>;
    type Number = TapeNumber<'a>;

    fn as_object(&self) -> Option<TapeObject<'a>> {
        match self.item() {
            Item::Obj { len, end } => Some(TapeObject {
                doc: self.doc,
                at: self.at,
                len,
                end,
            }),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<TapeArray<'a>> {
        match self.item() {
            Item::Arr { len, end } => Some(TapeArray {
                doc: self.doc,
                at: self.at,
                len,
                end,
            }),
            _ => None,
        }
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        match self.item() {
            s @ Item::Str { .. } => Some(Cow::Borrowed(self.doc.str_of(s))),
            _ => None,
        }
    }

    fn as_number(&self) -> Option<TapeNumber<'a>> {
        match self.item() {
            Item::Num { at, len } => Some(TapeNumber(
                self.doc
                    .src
                    .get(at as usize..(at + len) as usize)
                    .unwrap_or("0"),
            )),
            _ => None,
        }
    }

    fn as_boolean(&self) -> Option<bool> {
        match self.item() {
            Item::True => Some(true),
            Item::False => Some(false),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        self.item() == Item::Null
    }

    fn json_type(&self) -> JsonType {
        match self.item() {
            Item::Null => JsonType::Null,
            Item::False | Item::True => JsonType::Boolean,
            Item::Num { .. } => JsonType::Number,
            Item::Str { .. } => JsonType::String,
            Item::Arr { .. } => JsonType::Array,
            Item::Obj { .. } => JsonType::Object,
        }
    }

    fn equals_value(&self, expected: &Value) -> bool {
        match (self.item(), expected) {
            (s @ Item::Str { .. }, Value::String(e)) => self.doc.str_of(s) == e,
            (_, Value::String(_)) => false,
            (Item::True, Value::Bool(e)) => *e,
            (Item::False, Value::Bool(e)) => !*e,
            (item, Value::Null) => item == Item::Null,
            (Item::Num { .. }, Value::Number(e)) => {
                self.as_number().is_some_and(|n| cmp::equal_numbers(&n, e))
            }
            _ => cmp::equal(&self.to_value(), expected),
        }
    }

    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(match self.item() {
            Item::Null => Value::Null,
            Item::False => Value::Bool(false),
            Item::True => Value::Bool(true),
            Item::Num { .. } => self
                .as_number()
                .map_or(Value::Null, |n| Value::Number(n.to_number().into_owned())),
            s @ Item::Str { .. } => Value::String(self.doc.str_of(s).to_owned()),
            Item::Arr { .. } => Value::Array(
                self.as_array()
                    .into_iter()
                    .flat_map(|a| a.elements())
                    .map(|e| e.to_value().into_owned())
                    .collect(),
            ),
            Item::Obj { .. } => Value::Object(
                self.as_object()
                    .into_iter()
                    .flat_map(|o| o.members())
                    .map(|(k, v)| (k.to_owned(), v.to_value().into_owned()))
                    .collect(),
            ),
        })
    }

    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::tagged(
            self.doc.items.as_ptr() as usize,
            self.at,
        ))
    }
}

/// An object node.
#[derive(Debug, Clone, Copy)]
pub struct TapeObject<'a> {
    doc: &'a Doc<'a>,
    at: u32,
    len: u32,
    end: u32,
}

/// The members of an object, in order.
#[derive(Debug)]
pub struct Members<'a> {
    doc: &'a Doc<'a>,
    next: u32,
    end: u32,
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, TapeNode<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let key = self.doc.str_of(*self.doc.items.get(self.next as usize)?);
        let value = TapeNode {
            doc: self.doc,
            at: self.next + 1,
        };
        self.next = self.doc.skip(self.next + 1);
        Some((key, value))
    }
}

impl<'a> Object<'a, TapeJson> for TapeObject<'a> {
    type Node = TapeNode<'a>;
    type MemberName = &'a str;
    type MembersIter = Members<'a>;

    fn len(&self) -> usize {
        self.len as usize
    }

    fn get(&self, key: &Box<str>) -> Option<TapeNode<'a>> {
        self.members()
            .find(|(name, _)| *name == &**key)
            .map(|(_, v)| v)
    }

    fn members(&self) -> Members<'a> {
        Members {
            doc: self.doc,
            next: self.at + 1,
            end: self.end,
        }
    }
}

/// An array node.
#[derive(Debug, Clone, Copy)]
pub struct TapeArray<'a> {
    doc: &'a Doc<'a>,
    at: u32,
    len: u32,
    end: u32,
}

/// The elements of an array, in order.
#[derive(Debug)]
pub struct Elements<'a> {
    doc: &'a Doc<'a>,
    next: u32,
    end: u32,
}

impl<'a> Iterator for Elements<'a> {
    type Item = TapeNode<'a>;

    fn next(&mut self) -> Option<TapeNode<'a>> {
        if self.next >= self.end {
            return None;
        }
        let node = TapeNode {
            doc: self.doc,
            at: self.next,
        };
        self.next = self.doc.skip(self.next);
        Some(node)
    }
}

impl<'a> Array<'a, TapeJson> for TapeArray<'a> {
    type Node = TapeNode<'a>;
    type ElementsIter = Elements<'a>;

    fn len(&self) -> usize {
        self.len as usize
    }

    fn elements(&self) -> Elements<'a> {
        Elements {
            doc: self.doc,
            next: self.at + 1,
            end: self.end,
        }
    }
}
