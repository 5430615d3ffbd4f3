//! The deterministic JSON crusher: a big array becomes its item count, its schema, per-field
//! statistics and its first and last few items; the store keeps the array itself.
//!
//! Structured blobs are usually what makes a wake digest explode, and most of their bytes
//! repeat a shape. The crusher keeps what a reader needs to decide whether to fetch the
//! original: how many items, which fields with which types, each field's range (numbers:
//! min, max, mean), how many distinct values, and real examples from both ends. The same
//! array always gives the same text (first-seen field order, fixed number formatting), and
//! one pass over the items does all the work.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

use crate::ccr::thousands;

/// Items shown from each end.
pub const EDGE_ITEMS: usize = 3;

/// An item longer than this (compact JSON) is shortened in the digest.
pub const MAX_ITEM_BYTES: usize = 400;

/// A field with at most this many distinct scalar values has them listed with counts.
pub const MAX_LISTED_VALUES: usize = 8;

/// What one field (or the items themselves, for an array of non-objects) looks like.
#[derive(Debug, Default)]
struct Field {
    name: String,
    present: usize,
    types: Vec<&'static str>,
    nulls: usize,
    min: Option<(f64, String)>,
    max: Option<(f64, String)>,
    sum: f64,
    numbers: usize,
    distinct: HashSet<u64>,
    /// Each scalar value's text and count, in first-seen order, while there are at most
    /// [`MAX_LISTED_VALUES`]: a low-cardinality field (a status, a region) is listed in
    /// full, so the reader sees the rare `500` among the `200`s without fetching anything.
    values: Option<Vec<(String, usize)>>,
}

impl Field {
    fn named(name: &str) -> Field {
        Field {
            name: name.to_string(),
            values: Some(Vec::new()),
            ..Field::default()
        }
    }

    fn count_value(&mut self, value: &Value) {
        let text = match value {
            Value::Array(_) | Value::Object(_) => {
                self.values = None;
                return;
            }
            Value::String(s) if s.len() > 40 => {
                self.values = None;
                return;
            }
            other => other.to_string(),
        };
        let Some(values) = &mut self.values else {
            return;
        };
        if let Some(at) = values.iter().position(|(v, _)| *v == text) {
            values[at].1 += 1;
        } else if values.len() < MAX_LISTED_VALUES {
            values.push((text, 1));
        } else {
            self.values = None;
        }
    }

    fn observe(&mut self, value: &Value) {
        self.present += 1;
        let kind = type_name(value);
        if !self.types.contains(&kind) {
            self.types.push(kind);
        }
        match value {
            Value::Null => self.nulls += 1,
            Value::Number(n) => {
                if let Some(x) = n.as_f64().filter(|x| x.is_finite()) {
                    self.numbers += 1;
                    self.sum += x;
                    if self.min.as_ref().is_none_or(|(m, _)| x < *m) {
                        self.min = Some((x, n.to_string()));
                    }
                    if self.max.as_ref().is_none_or(|(m, _)| x > *m) {
                        self.max = Some((x, n.to_string()));
                    }
                }
            }
            _ => {}
        }
        // Distinct values are counted by a 64-bit digest of their JSON text: bounded memory
        // per value, exact for any realistic count.
        let mut hasher = DefaultHasher::new();
        match value {
            Value::String(s) => s.hash(&mut hasher),
            other => other.to_string().hash(&mut hasher),
        }
        kind.hash(&mut hasher);
        self.distinct.insert(hasher.finish());
        self.count_value(value);
    }

    fn line(&self, items: usize) -> String {
        let mut line = format!("- {}: {}", self.name, self.types.join("|"));
        let mut notes = Vec::new();
        if self.present < items {
            notes.push(format!(
                "in {} of {} items",
                thousands(self.present as u64),
                thousands(items as u64)
            ));
        }
        if self.nulls > 0 && self.types.len() > 1 {
            notes.push(format!("{} null", thousands(self.nulls as u64)));
        }
        if let (Some((_, min)), Some((_, max))) = (&self.min, &self.max) {
            notes.push(format!(
                "min {min}, max {max}, mean {}",
                number(self.sum / self.numbers as f64)
            ));
        }
        notes.push(format!(
            "{} distinct",
            thousands(self.distinct.len() as u64)
        ));
        if let Some(values) = self.values.as_ref().filter(|v| v.len() > 1) {
            let mut sorted = values.clone();
            // Most frequent first; ties in first-seen order (a stable sort): deterministic.
            sorted.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
            let listed: Vec<String> = sorted
                .iter()
                .map(|(v, n)| format!("{v} ×{}", thousands(*n as u64)))
                .collect();
            notes.push(listed.join(", "));
        }
        line.push_str("; ");
        line.push_str(&notes.join("; "));
        line
    }
}

/// The JSON Schema type of `value` (`integer` for a whole number); the session's envelope
/// checks name types the same way.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A mean with at most four decimals and no trailing zeros: `500.5`, `0.3333`, `12`.
fn number(x: f64) -> String {
    let text = format!("{x:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// The crushed view of an array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crushed {
    pub text: String,
    pub items: usize,
    /// Items not shown (the store has them).
    pub items_left_out: usize,
}

/// Crushes `items` to its count, schema, field statistics and edge items.
pub fn crush(items: &[Value]) -> Crushed {
    let mut fields: Vec<Field> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut non_objects = Field::named("(item)");
    for item in items {
        match item {
            Value::Object(map) => {
                for (key, value) in map {
                    let at = *index.entry(key.clone()).or_insert_with(|| {
                        fields.push(Field::named(key));
                        fields.len() - 1
                    });
                    fields[at].observe(value);
                }
            }
            other => non_objects.observe(other),
        }
    }
    let n = items.len();
    let objects = n - non_objects.present;
    let mut text = format!(
        "{} item{}",
        thousands(n as u64),
        if n == 1 { "" } else { "s" }
    );
    if !fields.is_empty() {
        let schema: Vec<String> = fields
            .iter()
            .map(|f| {
                let optional = if f.present < objects { "?" } else { "" };
                format!("{}{optional}: {}", f.name, f.types.join("|"))
            })
            .collect();
        text.push_str(&format!("; schema {{{}}}", schema.join(", ")));
    }
    if non_objects.present > 0 && !fields.is_empty() {
        text.push_str(&format!(
            "; {} non-object items",
            thousands(non_objects.present as u64)
        ));
    }
    text.push('\n');
    if n > 0 {
        text.push_str("fields:\n");
        for field in &fields {
            text.push_str(&field.line(objects));
            text.push('\n');
        }
        if non_objects.present > 0 {
            text.push_str(&non_objects.line(non_objects.present));
            text.push('\n');
        }
    }
    let shown_each = if n <= 2 * EDGE_ITEMS { n } else { EDGE_ITEMS };
    let head = &items[..shown_each.min(n)];
    let tail = if n <= 2 * EDGE_ITEMS {
        &items[n..]
    } else {
        &items[n - EDGE_ITEMS..]
    };
    if !head.is_empty() {
        text.push_str(&format!("first {}:\n", head.len()));
        for item in head {
            text.push_str(&item_line(item));
        }
    }
    if !tail.is_empty() {
        text.push_str(&format!(
            "[… {} items left out …]\n",
            thousands((n - head.len() - tail.len()) as u64)
        ));
        text.push_str(&format!("last {}:\n", tail.len()));
        for item in tail {
            text.push_str(&item_line(item));
        }
    }
    if text.ends_with('\n') {
        text.pop();
    }
    Crushed {
        text,
        items: n,
        items_left_out: n - head.len() - tail.len(),
    }
}

fn item_line(item: &Value) -> String {
    let json = serde_json::to_string(item).unwrap_or_default();
    if json.len() <= MAX_ITEM_BYTES {
        return format!("{json}\n");
    }
    let mut cut = MAX_ITEM_BYTES;
    while !json.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{} […{} more bytes]\n",
        &json[..cut],
        thousands((json.len() - cut) as u64)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rows(n: usize) -> Vec<Value> {
        (0..n)
            .map(|i| {
                let mut row = json!({"id": i + 1, "status": if i % 10 == 0 { "error" } else { "ok" }, "score": (i as f64) / 4.0});
                if i % 2 == 0 {
                    row["note"] = json!(null);
                } else {
                    row["note"] = json!(format!("n{i}"));
                }
                row
            })
            .collect()
    }

    #[test]
    fn an_array_of_objects_becomes_schema_stats_and_edges() {
        let out = crush(&rows(100));
        assert_eq!(out.items, 100);
        assert_eq!(out.items_left_out, 94);
        let text = &out.text;
        assert!(text.starts_with("100 items; schema {id: integer, status: string, score: number, note: null|string}\n"), "{text}");
        assert!(
            text.contains("- id: integer; min 1, max 100, mean 50.5; 100 distinct\n"),
            "{text}"
        );
        assert!(
            text.contains("- status: string; 2 distinct; \"ok\" ×90, \"error\" ×10\n"),
            "{text}"
        );
        assert!(
            text.contains("- note: null|string; 50 null; 51 distinct\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "first 3:\n{\"id\":1,\"status\":\"error\",\"score\":0.0,\"note\":null}\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("[… 94 items left out …]\nlast 3:\n"),
            "{text}"
        );
        assert!(
            text.ends_with("{\"id\":100,\"status\":\"ok\",\"score\":24.75,\"note\":\"n99\"}"),
            "{text}"
        );
    }

    #[test]
    fn optional_fields_and_scalar_arrays_are_described() {
        let out = crush(&[json!({"a": 1}), json!({"a": 2, "b": "x"}), json!({"a": 3})]);
        assert!(
            out.text.contains("schema {a: integer, b?: string}"),
            "{}",
            out.text
        );
        assert!(
            out.text
                .contains("- b: string; in 1 of 3 items; 1 distinct"),
            "{}",
            out.text
        );
        let out = crush(&(0..50).map(|i| json!(i % 7)).collect::<Vec<_>>());
        assert!(
            out.text.contains(
                "- (item): integer; min 0, max 6, mean 2.94; 7 distinct; 0 ×8, 1 ×7, 2 ×7"
            ),
            "{}",
            out.text
        );
    }

    #[test]
    fn crushing_is_deterministic_and_keeps_number_text() {
        let items: Vec<Value> =
            serde_json::from_str(r#"[{"price": 1.50}, {"price": 1e3}]"#).unwrap();
        assert_eq!(crush(&items), crush(&items));
        assert!(
            crush(&items).text.contains("min 1.50, max 1e+3"),
            "{}",
            crush(&items).text
        );
        assert_eq!(crush(&[]).text, "0 items");
    }
}
