//! The command reference in Markdown, generated from the command line's own definition, so
//! that `docs/reference.md` cannot drift from the flags `brief` accepts: a test regenerates it
//! and compares, and an argument without help text is listed as a problem.

use std::fmt::Write as _;

use clap::{Arg, ArgAction, Command};

/// The whole reference: one section per command, nested subcommands included, in the order
/// `brief help` lists them.
pub fn markdown(root: Command) -> String {
    let mut root = root;
    root.build();
    let mut out = String::new();
    out.push_str("# Command reference\n\n");
    out.push_str(
        "Generated from `brief`'s own argument definitions by `brief generate reference` \
         (a test fails when this file and the binary disagree). The guides in this folder \
         explain what the commands are for; this page lists what each accepts.\n\n",
    );
    let mut commands = Vec::new();
    collect(&root, &mut Vec::new(), &mut commands);
    out.push_str("## Contents\n\n");
    for (path, _) in &commands {
        let name = path.join(" ");
        let _ = writeln!(out, "- [`{name}`](#{})", anchor(&name));
    }
    out.push('\n');
    for (path, command) in &commands {
        section(&mut out, path, command);
    }
    out
}

/// Arguments and commands without help text: a flag added without docs.
pub fn undocumented(root: Command) -> Vec<String> {
    let mut root = root;
    root.build();
    let mut commands = Vec::new();
    collect(&root, &mut Vec::new(), &mut commands);
    let mut missing = Vec::new();
    for (path, command) in &commands {
        let name = path.join(" ");
        if path.len() > 1 && command.get_about().is_none() {
            missing.push(format!("`{name}` has no description"));
        }
        for arg in documented_args(command) {
            if arg.get_help().is_none() && arg.get_long_help().is_none() {
                missing.push(format!("`{name}` argument `{}` has no help", arg.get_id()));
            }
        }
    }
    missing
}

fn collect(command: &Command, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, Command)>) {
    path.push(command.get_name().to_string());
    out.push((path.clone(), command.clone()));
    for sub in command.get_subcommands() {
        if !sub.is_hide_set() && sub.get_name() != "help" {
            collect(sub, path, out);
        }
    }
    path.pop();
}

/// The GitHub-style anchor of a heading `brief session new`.
fn anchor(name: &str) -> String {
    name.chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_ascii_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

fn documented_args(command: &Command) -> impl Iterator<Item = &Arg> {
    command.get_arguments().filter(|arg| {
        !arg.is_hide_set()
            && !matches!(arg.get_action(), ArgAction::Help | ArgAction::HelpShort)
            && !matches!(arg.get_action(), ArgAction::Version)
    })
}

fn section(out: &mut String, path: &[String], command: &Command) {
    let name = path.join(" ");
    let level = if path.len() <= 2 { "##" } else { "###" };
    let _ = writeln!(out, "{level} {name}\n");
    if let Some(about) = command.get_long_about().or(command.get_about()) {
        let _ = writeln!(out, "{}\n", about.to_string().trim());
    }
    let mut usage_command = command.clone().bin_name(name.clone());
    let usage = usage_command.render_usage().to_string();
    let usage = usage.trim().trim_start_matches("Usage:").trim();
    let _ = writeln!(out, "```text\n{usage}\n```\n");
    let subcommands: Vec<&Command> = command
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .collect();
    if !subcommands.is_empty() {
        out.push_str("Subcommands:\n\n");
        for sub in subcommands {
            let full = format!("{name} {}", sub.get_name());
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            let _ = writeln!(out, "- [`{full}`](#{}) — {}", anchor(&full), about.trim());
        }
        out.push('\n');
    }
    let (positionals, options): (Vec<&Arg>, Vec<&Arg>) =
        documented_args(command).partition(|arg| arg.is_positional());
    // Global options are listed once, under `brief`.
    let options: Vec<&Arg> = options
        .into_iter()
        .filter(|arg| path.len() == 1 || !arg.is_global_set())
        .collect();
    if !positionals.is_empty() {
        out.push_str("Arguments:\n\n");
        for arg in positionals {
            let _ = writeln!(out, "- `{}` — {}", positional_name(arg), describe(arg));
        }
        out.push('\n');
    }
    if !options.is_empty() {
        out.push_str("Options:\n\n");
        for arg in options {
            let _ = writeln!(out, "- `{}` — {}", option_name(arg), describe(arg));
        }
        out.push('\n');
    }
}

fn positional_name(arg: &Arg) -> String {
    let names = arg
        .get_value_names()
        .map(|names| names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
        .unwrap_or_else(|| vec![arg.get_id().to_string().to_uppercase()]);
    let mut name = names.join(" ");
    if takes_many(arg) {
        name.push_str("...");
    }
    if !arg.is_required_set() {
        name = format!("[{name}]");
    }
    name
}

fn option_name(arg: &Arg) -> String {
    let mut flags = Vec::new();
    if let Some(short) = arg.get_short() {
        flags.push(format!("-{short}"));
    }
    if let Some(long) = arg.get_long() {
        flags.push(format!("--{long}"));
    }
    let mut name = flags.join(", ");
    if arg.get_action().takes_values() {
        let value = arg
            .get_value_names()
            .map(|names| names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
            .unwrap_or_else(|| vec![arg.get_id().to_string().to_uppercase()])
            .join(" ");
        let _ = write!(name, " {value}");
    }
    name
}

fn takes_many(arg: &Arg) -> bool {
    arg.get_num_args().is_some_and(|n| n.max_values() > 1)
        || matches!(arg.get_action(), ArgAction::Append)
}

/// Help text, then what the argument accepts: its values, default, environment variable and
/// whether it repeats.
fn describe(arg: &Arg) -> String {
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default();
    let mut text = help.trim().replace('\n', " ");
    let mut extras = Vec::new();
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| format!("`{}`", v.get_name()))
        .collect();
    if !values.is_empty() && arg.get_action().takes_values() {
        extras.push(format!("one of {}", values.join(", ")));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && arg.get_action().takes_values() {
        extras.push(format!("default `{}`", defaults.join(",")));
    }
    if let Some(env) = arg.get_env() {
        extras.push(format!("environment `{}`", env.to_string_lossy()));
    }
    if matches!(arg.get_action(), ArgAction::Append) {
        extras.push("repeatable".to_string());
    }
    if arg.is_required_set() && !arg.is_positional() {
        extras.push("required".to_string());
    }
    if !extras.is_empty() {
        if !text.is_empty() && !text.ends_with('.') {
            text.push('.');
        }
        if !text.is_empty() {
            text.push(' ');
        }
        let joined = extras.join("; ");
        let mut chars = joined.chars();
        if let Some(first) = chars.next() {
            text.push(first.to_ascii_uppercase());
            text.push_str(chars.as_str());
        }
        text.push('.');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_githubs() {
        assert_eq!(anchor("brief session new"), "brief-session-new");
        assert_eq!(anchor("brief ccr put"), "brief-ccr-put");
    }

    #[test]
    fn an_argument_without_help_is_undocumented() {
        let command = Command::new("brief").subcommand(
            Command::new("x")
                .about("does x")
                .arg(Arg::new("flag").long("flag")),
        );
        assert_eq!(
            undocumented(command),
            vec!["`brief x` argument `flag` has no help".to_string()]
        );
    }
}
