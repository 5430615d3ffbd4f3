//! The plain-text render, for people: the three tiers in the seed's stream notation.

use super::{Parts, entry_line};

pub fn text(parts: &Parts) -> String {
    let mut out = String::from("=== Tier 1: static ===\n");
    if !parts.static_system.is_empty() {
        out.push_str(parts.static_system);
        out.push('\n');
    }
    if !parts.examples.is_empty() {
        out.push_str(&crate::prompt::examples::readable(parts.examples));
        out.push('\n');
    }
    for tool in parts.tools {
        out.push_str(&format!("tool {}: {}\n", tool.name, tool.description));
    }
    out.push_str("\n=== Tier 2: memory ===\n");
    for entry in &parts.tier2 {
        out.push_str(&entry_line(entry));
        out.push('\n');
    }
    out.push_str("\n=== Tier 3: volatile ===\n");
    out.push_str(parts.tier3);
    out.push('\n');
    out
}
