//! `brief count`: exact token counts of plain files and stdin, the way a provider counts
//! them, without a brief around them. The counting is `crate::tokens::stream`.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::ui::Ui;
use crate::error::{Error, Result};
use crate::files::{input, policy};
use crate::numbers::thousands;
use crate::tokens::Encoding;
use crate::tokens::stream::{StreamError, count_all};

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

#[derive(Serialize)]
struct FileCount {
    file: String,
    tokens: usize,
    bytes: u64,
}

#[derive(Serialize)]
struct Counted {
    tokenizer: Encoding,
    tokens: usize,
    bytes: u64,
    files: Vec<FileCount>,
    /// Only stdin was counted: the human form is the bare number.
    #[serde(skip)]
    only_stdin: bool,
}

const STDIN: &str = "-";

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let only_stdin = args.files.is_empty() || args.files == [PathBuf::from(STDIN)];
    let files = if args.files.is_empty() {
        vec![PathBuf::from(STDIN)]
    } else {
        args.files
    };
    check_inputs(&files)?;
    let inputs = files.iter().map(|path| open(path));
    let counted = count_all(args.tokenizer, inputs).map_err(|(index, err)| {
        let path = &files[index];
        match err {
            StreamError::Io(err) => Error::io(path, &err),
            StreamError::NotUtf8 { offset, line } => Error::input(format!(
                "{}:{line}: not UTF-8 text (the byte at offset {offset} is not valid UTF-8)",
                input::label(path)
            ))
            .with_hint("brief count counts text: convert it to UTF-8 first (e.g. with iconv)"),
        }
    })?;
    let report = Counted {
        only_stdin,
        tokenizer: args.tokenizer,
        tokens: counted.iter().map(|c| c.tokens).sum(),
        bytes: counted.iter().map(|c| c.bytes).sum(),
        files: files
            .iter()
            .zip(&counted)
            .map(|(path, c)| FileCount {
                file: path.display().to_string(),
                tokens: c.tokens,
                bytes: c.bytes,
            })
            .collect(),
    };
    output::print(ui, Form::json_if(args.json), &report)
}

impl Report for Counted {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        format!(
            "{} tokens in {} input{} ({})",
            thousands(self.tokens as u64),
            self.files.len(),
            if self.files.len() == 1 { "" } else { "s" },
            self.tokenizer
        )
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        if self.only_stdin {
            return ui.outln(&self.tokens.to_string());
        }
        let width = self.tokens.to_string().len();
        for file in &self.files {
            ui.outln(&format!("{:>width$}  {}", file.tokens, file.file))?;
        }
        if self.files.len() > 1 {
            ui.outln(&format!("{:>width$}  total", self.tokens))?;
        }
        Ok(())
    }
}

/// Every input is a regular file (or stdin, once) before anything is counted.
fn check_inputs(files: &[PathBuf]) -> Result<()> {
    if files.iter().filter(|f| input::is_stdin(f)).count() > 1 {
        return Err(Error::input("`-` (stdin) is named more than once")
            .with_hint("stdin can be read once; name it once"));
    }
    // The one file policy: a FIFO would hang the count, a device could be endless. The
    // size is not limited: the count reads in blocks, in bounded memory.
    for path in files.iter().filter(|f| !input::is_stdin(f)) {
        policy::check_regular(path)
            .map_err(|e| e.with_hint("brief count counts regular files and stdin (`-`)"))?;
    }
    Ok(())
}

fn open(path: &Path) -> io::Result<Box<dyn Read>> {
    if input::is_stdin(path) {
        Ok(Box::new(io::stdin().lock()))
    } else {
        Ok(Box::new(File::open(path)?))
    }
}
