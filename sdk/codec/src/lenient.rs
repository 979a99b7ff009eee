//! Lenient field types for native JSON lines: a field of an unexpected JSON
//! type reads as absent instead of failing the line, because harnesses
//! change shapes between releases and one odd field must not cost the whole
//! record. Strings are borrowed from the read buffer when they have no
//! escapes.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A string field, borrowed when it has no escapes. Absent when the value is
/// not a string.
#[derive(Debug, Default, Clone)]
pub struct Text<'a>(pub Option<Cow<'a, str>>);

impl Text<'_> {
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }

    pub fn owned(&self) -> Option<String> {
        self.0.as_deref().map(str::to_string)
    }

    /// The value when it is a non-empty string.
    pub fn non_empty(&self) -> Option<&str> {
        self.get().filter(|s| !s.is_empty())
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(v))))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Text(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Text(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Text(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Text(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Text(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Text(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Text(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Text(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A boolean field; absent when not a boolean.
#[derive(Debug, Default, Clone, Copy)]
pub struct Flag(pub Option<bool>);

impl Flag {
    pub fn is_true(self) -> bool {
        self.0 == Some(true)
    }
}

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Flag(match Scalar::deserialize(d)? {
            Scalar::Bool(b) => Some(b),
            _ => None,
        }))
    }
}

/// A non-negative integer field (token counts); absent when not one. A
/// whole float (`12.0`) counts.
#[derive(Debug, Default, Clone, Copy)]
pub struct Count(pub Option<u64>);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Count(match Scalar::deserialize(d)? {
            Scalar::Unsigned(n) => Some(n),
            Scalar::Float(f) if f >= 0.0 && f.fract() == 0.0 && f < 1e19 => Some(f as u64),
            _ => None,
        }))
    }
}

/// An integer field (exit codes, counts that may be negative); absent when
/// not an integer. A whole float counts.
#[derive(Debug, Default, Clone, Copy)]
pub struct Int(pub Option<i64>);

impl Int {
    /// The value when it is a non-negative count.
    pub fn count(self) -> Option<u64> {
        self.0.and_then(|n| u64::try_from(n).ok())
    }
}

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Int(match Scalar::deserialize(d)? {
            Scalar::Negative(n) => Some(n),
            Scalar::Unsigned(n) => i64::try_from(n).ok(),
            Scalar::Float(f) if f.fract() == 0.0 && f.abs() < 9e18 => Some(f as i64),
            _ => None,
        }))
    }
}

/// A scalar or an ignored compound value.
enum Scalar {
    Bool(bool),
    Unsigned(u64),
    Negative(i64),
    Float(f64),
    Other,
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar::Bool(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar::Unsigned(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(if v >= 0 { Scalar::Unsigned(v as u64) } else { Scalar::Negative(v) })
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar::Float(v))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Scalar, E> {
                Ok(Scalar::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Scalar, E> {
                Ok(Scalar::Other)
            }
            fn visit_none<E: de::Error>(self) -> Result<Scalar, E> {
                Ok(Scalar::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// An object field parsed as `T`, or absent when the value is not an object
/// of that shape is not even an object (null, string, array, number).
#[derive(Debug)]
pub struct Obj<T>(pub Option<T>);

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| Obj(Some(t)))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Obj(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Obj(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Obj(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Obj(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Obj(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Obj(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Obj(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Obj(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Line<'a> {
        #[serde(borrow)]
        t: Text<'a>,
        f: Flag,
        c: Count,
        i: Int,
        o: Obj<Inner>,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct Inner {
        x: u32,
    }

    #[test]
    fn odd_types_read_as_absent_and_the_line_still_parses() {
        let good: Line = serde_json::from_str(r#"{"t":"plain","f":true,"c":12,"i":-3,"o":{"x":1}}"#).unwrap();
        assert!(matches!(good.t.0, Some(Cow::Borrowed("plain"))), "borrowed without escapes");
        assert!(good.f.is_true());
        assert_eq!((good.c.0, good.i.0, good.i.count()), (Some(12), Some(-3), None));
        assert_eq!(good.o.0, Some(Inner { x: 1 }));
        let escaped: Line = serde_json::from_str(r#"{"t":"a\nb","c":12.0,"i":7}"#).unwrap();
        assert_eq!(escaped.t.get(), Some("a\nb"));
        assert_eq!((escaped.c.0, escaped.i.count()), (Some(12), Some(7)));
        let odd: Line = serde_json::from_str(r#"{"t":5,"f":"yes","c":-1,"i":"7","o":[1]}"#).unwrap();
        assert!(
            odd.t.get().is_none() && odd.f.0.is_none() && odd.c.0.is_none() && odd.i.0.is_none() && odd.o.0.is_none()
        );
        let empty: Line = serde_json::from_str(r#"{"t":""}"#).unwrap();
        assert_eq!((empty.t.get(), empty.t.non_empty()), (Some(""), None));
    }
}
