//! The lexicons kept as data files (`data/*.txt`, read at build time): short forms a
//! telegraphic rewrite uses for words, symbols it writes for words, and how context
//! (a rationale, an example, a preface) starts. One entry a line, `key: word word …`,
//! `#` starts a comment; the tests below hold every file to that shape.

use std::sync::OnceLock;

const ABBREVIATIONS: &str = include_str!("data/abbreviations.txt");
const SYMBOLS: &str = include_str!("data/symbols.txt");
const CONTEXT: &str = include_str!("data/context.txt");
const STRENGTH: &str = include_str!("data/strength.txt");
const FENCES: &str = include_str!("data/fences.txt");
const SECTIONS: &str = include_str!("data/sections.txt");

/// The entries of a data file: `(key, rest)` per line, comments and blank lines skipped.
fn entries(file: &'static str) -> impl Iterator<Item = (&'static str, &'static str)> {
    file.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (key, rest) = l.split_once(": ")?;
            Some((key.trim(), rest.trim()))
        })
}

/// Each short form with the word it stands for (`deps` → `dependency`).
pub fn abbreviations() -> impl Iterator<Item = (&'static str, &'static str)> {
    entries(ABBREVIATIONS).flat_map(|(word, shorts)| shorts.split(' ').map(move |s| (s, word)))
}

/// Each symbol with the words it stands for (`>` → `rather than`, `over`, …).
pub fn symbols() -> impl Iterator<Item = (&'static str, &'static str)> {
    entries(SYMBOLS)
}

/// The symbols read as their words in the counterpart search, longest first: every
/// symbol of the file but the comparisons (`<`, `>=`, `≤`), which the reader already
/// takes for bounds.
pub fn symbol_words() -> &'static [(&'static str, &'static str)] {
    static TABLE: OnceLock<Vec<(&'static str, &'static str)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut v: Vec<_> = symbols()
            .filter(|(s, _)| !matches!(*s, "<" | ">" | "<=" | ">=" | "≤" | "≥"))
            .collect();
        v.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));
        v
    })
}

/// What a heading or lead-in says of the units under it (`example`, `rationale`: they
/// are context; `order`: its list is the agent's rules), by the first of its words found
/// in `sections.txt`.
pub fn section_role(text: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    entries(SECTIONS)
        .filter(|(role, _)| *role != "speaker")
        .find(|(_, w)| words.contains(w))
        .map(|(role, _)| role)
}

/// Whether a line starts with a speaker's label (`User:`, `Agent:`): a line of a sample
/// dialogue.
pub fn starts_with_speaker(line: &str) -> bool {
    let Some((label, _)) = line.split_once(':') else {
        return false;
    };
    let label = label.trim().to_lowercase();
    entries(SECTIONS).any(|(role, w)| role == "speaker" && w == label)
}

/// Whether a fenced block's info string names a programming or data language.
pub fn is_code_language(tag: &str) -> bool {
    entries(FENCES).any(|(_, tags)| tags.split(' ').any(|t| t == tag))
}

/// The qualifiers (`explicitly`, `gradually`, `each`), each with the words that keep it.
pub fn qualifiers() -> impl Iterator<Item = Vec<&'static str>> {
    entries(STRENGTH)
        .filter(|(key, _)| *key == "qualifier")
        .map(|(_, words)| words.split(", ").collect())
}

/// Which qualifiers (`qualifiers()`, in file order, the first 32) a lowercased text has,
/// as bits.
pub fn qualifier_mask(lower: &str) -> u32 {
    static LIST: OnceLock<Vec<Vec<&'static str>>> = OnceLock::new();
    let list = LIST.get_or_init(|| qualifiers().take(32).collect());
    list.iter()
        .enumerate()
        .filter(|(_, words)| words.iter().any(|w| has_qualifier(lower, w)))
        .fold(0, |mask, (i, _)| mask | 1 << i)
}

/// Whether qualifier `word` stands in a lowercased text as a qualifier: an adjective
/// (`manual`, `careful`: one word, no `-ly`) only before a word it qualifies (`manual
/// review`, not `instruction manual` or `be careful with`), and no word only intensifying
/// a negation (`strictly no`, `absolutely never`: the negation carries the rule), and no
/// `explicitly` within two words of a verb of saying (`specify the platform explicitly`:
/// what is specified is explicit already; `explicitly asked` keeps it).
pub fn has_qualifier(lower: &str, word: &str) -> bool {
    let bounded = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '\'');
    let intensified = strength_list("intensified");
    let stop = super::ENGLISH.stop_words;
    let adjective = !word.contains(' ') && !word.ends_with("ly");
    lower.match_indices(word).any(|(at, _)| {
        let end = at + word.len();
        if !bounded(lower[..at].chars().next_back()) || !bounded(lower[end..].chars().next()) {
            return false;
        }
        let next = lower[end..]
            .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
            .find(|x| !x.is_empty());
        !(adjective && next.is_none_or(|x| stop.contains(&x))
            || next.is_some_and(|x| intensified.contains(&x))
            || word.starts_with("explicit") && says(&lower[..at], &lower[end..]))
    })
}

/// The words of strength.txt under `key` (`intensified`, `self-explicit`), read once.
fn strength_list(key: &str) -> &'static [&'static str] {
    static LISTS: OnceLock<Vec<(&'static str, Vec<&'static str>)>> = OnceLock::new();
    let lists = LISTS.get_or_init(|| {
        ["intensified", "self-explicit"]
            .into_iter()
            .map(|k| (k, strength(k)))
            .collect()
    });
    lists
        .iter()
        .find(|(k, _)| *k == key)
        .map_or(&[], |(_, v)| v.as_slice())
}

/// Whether a verb of saying (`self-explicit:` in strength.txt) stands within three words
/// before or two after a qualifier.
fn says(before: &str, after: &str) -> bool {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|x| !x.is_empty())
            .map(str::to_string)
            .collect()
    };
    let verbs = strength_list("self-explicit");
    let (before, after) = (words(before), words(after));
    before
        .iter()
        .rev()
        .take(3)
        .chain(after.iter().take(2))
        .any(|x| verbs.contains(&x.as_str()))
}

/// The first word of the qualifier at bit `bit` of a [`qualifier_mask`].
pub fn qualifier_name(bit: u32) -> &'static str {
    qualifiers()
        .nth(bit as usize)
        .and_then(|words| words.first().copied())
        .unwrap_or("")
}

/// The words of a strength: `weak` (a preference, a habit) or `strong` (an absolute).
pub fn strength(which: &str) -> Vec<&'static str> {
    entries(STRENGTH)
        .filter(|(key, _)| *key == which)
        .flat_map(|(_, words)| words.split(", "))
        .collect()
}

/// Whether `phrase` occurs in `lower` (lowercased text) as whole words.
pub fn has_phrase(lower: &str, phrase: &str) -> bool {
    let mut from = 0;
    while let Some(n) = lower[from..].find(phrase) {
        let at = from + n;
        let end = at + phrase.len();
        let before = lower[..at].chars().next_back();
        let after = lower[end..].chars().next();
        let bounded = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '\'');
        if bounded(before) && bounded(after) {
            return true;
        }
        from = at + phrase.len().max(1);
        while !lower.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

/// How context starts: `(role, phrase)`, longest phrase first.
pub fn context_openers() -> &'static [(&'static str, &'static str)] {
    static OPENERS: OnceLock<Vec<(&'static str, &'static str)>> = OnceLock::new();
    OPENERS.get_or_init(|| {
        let mut v: Vec<_> = entries(CONTEXT).collect();
        v.sort_by_key(|(_, phrase)| std::cmp::Reverse(phrase.len()));
        v
    })
}

/// The role of the context a text starts with (`rationale`, `example`, `preface`), if
/// it starts with one of the openers, as a whole word.
pub fn context_role(text: &str) -> Option<&'static str> {
    let head: String = text
        .chars()
        .take(40)
        .map(|c| if c == '’' { '\'' } else { c })
        .collect::<String>()
        .to_lowercase();
    context_openers().iter().find_map(|&(role, phrase)| {
        let rest = head.strip_prefix(phrase)?;
        let whole = rest
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric() && c != '\'');
        (whole && (role != "persona" || !names_identity(text, phrase))).then_some(role)
    })
}

/// Whether a persona opener (`You are`) goes on to name who the agent is (`You are Pia,
/// the booking assistant`, `You are a reviewer`): the identity it acts as is an
/// instruction; a description of it (`You are both writer and editor`, `You are
/// rebuilt each session`) is context.
fn names_identity(text: &str, phrase: &str) -> bool {
    let next = text
        .get(phrase.len()..)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or("");
    next.chars().next().is_some_and(char::is_uppercase)
        || ["a", "an", "the", "our", "my", "their"].contains(&next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(file: &str) -> impl Iterator<Item = &str> {
        file.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
    }

    #[test]
    fn every_line_of_every_file_is_an_entry() {
        for file in [ABBREVIATIONS, SYMBOLS, CONTEXT, STRENGTH, FENCES, SECTIONS] {
            for l in lines(file) {
                let (key, rest) = l.split_once(": ").unwrap_or_else(|| panic!("`{l}`"));
                assert!(!key.trim().is_empty() && !rest.trim().is_empty(), "`{l}`");
                assert_eq!(l, l.to_lowercase(), "not lowercase: `{l}`");
                assert!(!l.contains("  "), "two spaces: `{l}`");
            }
        }
    }

    #[test]
    fn a_short_form_stands_for_one_word_and_is_no_constraint_word() {
        let english = super::super::ENGLISH;
        let mut seen = std::collections::HashMap::new();
        for (short, word) in abbreviations() {
            if let Some(other) = seen.insert(short, word) {
                panic!("`{short}` stands for `{other}` and `{word}`");
            }
            for list in [
                english.negation,
                english.exclusivity,
                english.condition,
                english.exception,
                english.stop_words,
            ] {
                assert!(
                    !list.contains(&short),
                    "`{short}` is a constraint or stop word"
                );
            }
        }
        assert_eq!(seen.get("deps"), Some(&"dependency"));
        assert_eq!(seen.get("repo"), Some(&"repository"));
    }

    #[test]
    fn context_is_known_by_its_opening_words() {
        assert_eq!(
            context_role("It makes refactoring easier."),
            Some("rationale")
        );
        assert_eq!(context_role("For example, test that …"), Some("example"));
        assert_eq!(context_role("I’m a senior engineer"), Some("preface"));
        assert_eq!(
            context_role("You are both writer and editor"),
            Some("persona")
        );
        assert_eq!(context_role("You are the reviewer here"), None);
        assert_eq!(context_role("You are Pia, the assistant"), None);
        assert_eq!(context_role("You can read any file"), Some("persona"));
        assert_eq!(context_role("Your answers stay short"), None);
        assert_eq!(context_role("Items must be short"), None);
        assert_eq!(context_role("Thistle is a plant"), None);
        assert_eq!(context_role("Likewise, check"), None);
    }

    #[test]
    fn qualifiers_and_strengths_are_read_as_whole_words() {
        assert!(qualifiers().any(|q| q.contains(&"explicitly")));
        assert!(strength("weak").contains(&"prefer"));
        assert!(strength("strong").contains(&"always"));
        assert!(has_phrase("only when explicitly asked", "explicitly"));
        let mask = qualifier_mask("occasionally epic, explicitly asked");
        assert_eq!(mask.count_ones(), 2);
        assert_eq!(qualifier_name(mask.trailing_zeros()), "explicitly");
        assert_eq!(qualifier_mask("epic declarations"), 0);
        // An adjective qualifies the word after it; an intensified negation stays whole.
        assert_ne!(qualifier_mask("run a manual review"), 0);
        assert_eq!(qualifier_mask("read the instruction manual."), 0);
        assert_eq!(qualifier_mask("be careful with tests"), 0);
        assert_eq!(qualifier_mask("strictly no legacy decorators"), 0);
        assert_ne!(qualifier_mask("strictly validate input"), 0);
        assert_eq!(qualifier_mask("specify the platform explicitly"), 0);
        assert_ne!(qualifier_mask("only when explicitly asked"), 0);
        assert!(!has_phrase("everything", "every"));
        assert!(has_phrase("try to keep", "try to"));
        assert!(!has_phrase("entry to", "try to"));
    }

    #[test]
    fn notation_symbols_read_as_words_and_code_tags_are_known() {
        let words = |sym: &str| symbol_words().iter().find(|(s, _)| *s == sym).map(|e| e.1);
        assert_eq!(words("¬"), Some("not"));
        assert!(words("∀").is_some_and(|w| w.contains("every")));
        assert!(words("w/o").is_some());
        // Comparisons stay bounds for the reader.
        assert_eq!(words("≥"), None);
        assert!(
            symbol_words()
                .windows(2)
                .all(|p| p[0].0.len() >= p[1].0.len())
        );
        assert!(is_code_language("rust") && is_code_language("yaml"));
        assert!(!is_code_language("crux") && !is_code_language(""));
    }

    #[test]
    fn sections_say_what_is_under_them() {
        assert_eq!(section_role("Bad examples:"), Some("example"));
        assert_eq!(
            section_role("## Team Motivation Effects"),
            Some("rationale")
        );
        assert_eq!(section_role("### Agent-Specific Styles"), Some("order"));
        assert_eq!(section_role("## Installation"), None);
        assert!(starts_with_speaker("User: Can you help?"));
        assert!(!starts_with_speaker("Users must log in: always"));
        assert!(!starts_with_speaker("no label here"));
    }

    #[test]
    fn symbols_name_words() {
        let gt: Vec<_> = symbols().filter(|(s, _)| *s == ">").collect();
        assert!(gt[0].1.contains("rather"));
    }
}
