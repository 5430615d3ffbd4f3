//! Where a value of a tool file is: the line and column of the value at a path, so that a
//! schema problem found in the parsed JSON points into the YAML file as written.

use super::Step;

/// Line and column (1-based) of the value at `path` in a tool file's YAML text.
pub fn locate(yaml: &str, path: &[Step]) -> Option<(usize, usize)> {
    use serde::de::DeserializeSeed;
    let seed = Seek { path };
    match seed.deserialize(serde_yaml::Deserializer::from_str(yaml)) {
        Ok(()) => None,
        Err(err) => err.location().map(|l| (l.line(), l.column())),
    }
}

/// Walks a YAML document along `path` and fails at its end: the parser's error then
/// carries the position of the value found there.
struct Seek<'p> {
    path: &'p [Step],
}

const FOUND: &str = "found";

impl<'de> serde::de::DeserializeSeed<'de> for Seek<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Seek<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some((Step::Key(wanted), rest)) = self.path.split_first() else {
            return Err(serde::de::Error::custom(FOUND));
        };
        while let Some(key) = map.next_key::<serde_yaml::Value>()? {
            let name = match &key {
                serde_yaml::Value::String(s) => s.clone(),
                other => serde_yaml::to_string(other)
                    .unwrap_or_default()
                    .trim()
                    .to_string(),
            };
            if name == *wanted {
                return map.next_value_seed(Seek { path: rest });
            }
            map.next_value::<serde::de::IgnoredAny>()?;
        }
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some((Step::Index(wanted), rest)) = self.path.split_first() else {
            return Err(serde::de::Error::custom(FOUND));
        };
        let mut i = 0;
        while i < *wanted {
            if seq.next_element::<serde::de::IgnoredAny>()?.is_none() {
                return Ok(());
            }
            i += 1;
        }
        seq.next_element_seed(Seek { path: rest }).map(|_| ())
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
}
