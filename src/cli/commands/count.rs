//! `brief count`: exact token counts of plain files and stdin, the way a provider counts
//! them, without a brief around them. Arguments, one call to
//! [`crate::tokens::files::count_files`], and its table.

use std::path::PathBuf;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::table::{Align, Table};
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::tokens::Encoding;
use crate::tokens::files::{self, FileCounts};

/// Count the tokens of text files or stdin exactly (o200k_base or cl100k_base)
///
/// Counts are the tokens OpenAI's tokenizers give (Python tiktoken's `encode_ordinary`:
/// special-token strings count as plain text), per file and in total. With no FILE, or `-`,
/// stdin is read. Files must be UTF-8 text. Counting reads each file once, in blocks, on
/// every core.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  brief count prompt.md\n  brief count items/*.md --tokenizer cl100k_base\n  cat prompt.md | brief count"
)]
pub struct Args {
    /// Text files to count (`-` for stdin; stdin when none is given)
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// o200k_base (GPT-4o and later) or cl100k_base (GPT-4)
    #[arg(long, value_name = "NAME", default_value = "o200k_base", value_parser = parse_encoding)]
    pub tokenizer: Encoding,
    /// Print one JSON object: {"status", "summary", "tokenizer", "tokens", "bytes", "files":
    /// [{"file", "tokens", "bytes"}]}
    #[arg(long)]
    pub json: bool,
}

fn parse_encoding(text: &str) -> std::result::Result<Encoding, String> {
    text.parse::<Encoding>().map_err(|e| match e.hint {
        Some(hint) => format!("{} ({hint})", e.message),
        None => e.message,
    })
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let counts = files::count_files(args.tokenizer, &args.files)?;
    output::print(ui, Form::json_if(args.json), &counts)
}

impl Report for FileCounts {
    fn status(&self) -> &str {
        FileCounts::status(self)
    }

    fn summary(&self) -> String {
        FileCounts::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        if self.only_stdin {
            return ui.outln(&self.tokens.to_string());
        }
        let mut table = Table::new(&[Align::Right, Align::Left]);
        for file in &self.files {
            table.row([file.tokens.to_string(), file.file.clone()]);
        }
        if self.files.len() > 1 {
            table.row([self.tokens.to_string(), "total".to_string()]);
        }
        ui.out(&table.render())
    }
}
