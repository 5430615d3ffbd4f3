//! `--format` for a body format (`brief compose`, `brief session render`): a clap value
//! parser built from [`Format::ALL`], so that the core's one enum is the list of accepted
//! values. A new wire added there is accepted, listed in `--help` and completed by every
//! command that takes a body format, with no mirror enum to update (the core knows no clap).
//!
//! The parsing, the error for a bad value and the `--help` list are clap's own
//! [`PossibleValuesParser`]'s, which is what the derived `ValueEnum` parsers used: the
//! messages and exit codes stay the same.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

use crate::prompt::render::Format;

/// The `--format` parser of one command: every format, in [`Format::ALL`]'s order unless
/// text is asked for last, each with this command's words for it.
#[derive(Clone)]
pub struct FormatParser {
    text_last: bool,
    help: fn(Format) -> Option<&'static str>,
}

impl FormatParser {
    /// Every format, with `help` (this command's sentence for a format, if any) beside
    /// its name in `--help`.
    pub fn new(help: fn(Format) -> Option<&'static str>) -> FormatParser {
        FormatParser {
            text_last: false,
            help,
        }
    }

    /// Offers text after the wires (`session render`, whose default is a body).
    pub fn text_last(mut self) -> FormatParser {
        self.text_last = true;
        self
    }

    /// The formats in the order this command offers them.
    fn formats(&self) -> impl Iterator<Item = Format> + '_ {
        let mut formats = Format::ALL.to_vec();
        if self.text_last {
            formats.sort_by_key(|f| *f == Format::Text);
        }
        formats.into_iter()
    }

    fn values(&self) -> Vec<PossibleValue> {
        self.formats()
            .map(|format| PossibleValue::new(format.as_str()).help((self.help)(format)))
            .collect()
    }
}

impl TypedValueParser for FormatParser {
    type Value = Format;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Format, clap::Error> {
        let name = PossibleValuesParser::new(self.values()).parse_ref(cmd, arg, value)?;
        // Every name offered is a format's `as_str`, so this finds one; were it ever not,
        // the value is refused as clap refuses any other.
        Format::parse(&name)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.values().into_iter()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each command offers every format of the core's list, and parses each name back to
    /// the format it names.
    #[test]
    fn every_core_format_is_offered_and_parsed() {
        let cmd = clap::Command::new("t");
        for parser in [
            FormatParser::new(|_| None),
            FormatParser::new(|_| None).text_last(),
        ] {
            let offered: Vec<String> = parser
                .possible_values()
                .into_iter()
                .flatten()
                .map(|v| v.get_name().to_owned())
                .collect();
            assert_eq!(offered.len(), Format::ALL.len());
            for format in Format::ALL {
                assert!(offered.iter().any(|name| name == format.as_str()));
                let parsed = parser.parse_ref(&cmd, None, OsStr::new(format.as_str()));
                assert_eq!(parsed.ok(), Some(format));
            }
            assert!(parser.parse_ref(&cmd, None, OsStr::new("morse")).is_err());
        }
        let last = FormatParser::new(|_| None).text_last().formats().last();
        assert_eq!(last, Some(Format::Text));
    }
}
