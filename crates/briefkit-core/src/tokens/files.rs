//! Exact token counts of plain files and stdin, without a brief around them (`brief
//! count`): every input checked before any is read (a FIFO would hang the count, a device
//! could be endless), then counted in blocks by [`super::stream::count_all`], in bounded
//! memory whatever the size.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Encoding;
use super::stream::{StreamError, count_all};
use crate::error::{CountTopic, Error, Result, Topic};
use crate::files::{input, policy};
use crate::numbers::thousands;

/// The name that stands for stdin.
pub const STDIN: &str = "-";

/// The counts of every input and their total. The serialised keys and their order are the
/// JSON contract of `brief count`.
#[derive(Debug, Serialize)]
pub struct FileCounts {
    pub tokenizer: Encoding,
    pub tokens: usize,
    pub bytes: u64,
    pub files: Vec<FileCount>,
    /// Only stdin was counted.
    #[serde(skip)]
    pub only_stdin: bool,
}

#[derive(Debug, Serialize)]
pub struct FileCount {
    pub file: String,
    pub tokens: usize,
    pub bytes: u64,
}

impl FileCounts {
    /// Always `ok`: an input that cannot be counted is an error.
    pub fn status(&self) -> &'static str {
        "ok"
    }

    /// `1,234 tokens in 2 inputs (o200k_base)`
    pub fn summary(&self) -> String {
        format!(
            "{} tokens in {} input{} ({})",
            thousands(self.tokens as u64),
            self.files.len(),
            if self.files.len() == 1 { "" } else { "s" },
            self.tokenizer
        )
    }
}

/// Counts `files` (`-` is stdin; no file at all means stdin) with `encoding`. Files must be
/// regular UTF-8 text files; an error names the file (and the line of a byte that is not
/// UTF-8).
pub fn count_files(encoding: Encoding, files: &[PathBuf]) -> Result<FileCounts> {
    let only_stdin = files.is_empty() || files == [PathBuf::from(STDIN)];
    let files = if files.is_empty() {
        vec![PathBuf::from(STDIN)]
    } else {
        files.to_vec()
    };
    check_inputs(&files)?;
    let inputs = files.iter().map(|path| open(path));
    let counted = count_all(encoding, inputs).map_err(|(index, err)| {
        let path = &files[index];
        match err {
            StreamError::Io(err) => Error::io(path, &err),
            StreamError::NotUtf8 { offset, line } => Error::input(format!(
                "{}:{line}: not UTF-8 text (the byte at offset {offset} is not valid UTF-8)",
                input::label(path)
            ))
            .with_topic(Topic::Count(CountTopic::NotUtf8)),
        }
    })?;
    Ok(FileCounts {
        only_stdin,
        tokenizer: encoding,
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
    })
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
            .map_err(|e| e.with_topic(Topic::Count(CountTopic::NotRegular)))?;
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
