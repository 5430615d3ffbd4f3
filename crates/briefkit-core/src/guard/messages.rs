//! The guard on a conversation sample: message by message, the proposal keeping every
//! message and its role.

use super::{Change, DroppedInstruction, Fact, Report, check};

/// The guard on an item's body and a proposed body. A `format: messages` sample is
/// compared message by message: the proposal must be a messages body with as many
/// messages, in the same roles (else an input error says what differs), and each content
/// pair goes through [`check`]; every finding names its message. Any other item is
/// [`check`] of the two bodies.
pub fn check_item(item: &crate::brief::Item, proposal: &str) -> crate::error::Result<Report> {
    let mut report = match item.messages() {
        None => check(item.body(), proposal),
        Some(original) => check_messages(&item.id, original, proposal)?,
    };
    super::compare::locate_in_item(&mut report, item);
    Ok(report)
}

/// [`check_item`] for a messages body `original` and a proposed body.
pub fn check_messages(
    item: &str,
    original: &[crate::brief::SampleMessage],
    proposal: &str,
) -> crate::error::Result<Report> {
    use crate::brief::SampleMessage;
    use crate::error::Error;
    let refuse = |why: String| {
        Error::input(format!("the proposal for `{item}` {why}")).with_hint(
            "a proposal for a conversation sample keeps every message and its role; only the contents may be shortened",
        )
    };
    // Count and roles first, read leniently: they say best what a proposal changed.
    if let Some(roles) = crate::brief::sample::roles(proposal) {
        if roles.len() != original.len() {
            return Err(refuse(format!(
                "has {} messages where the item has {}",
                roles.len(),
                original.len()
            )));
        }
        if let Some(i) = (0..original.len()).find(|&i| original[i].role.as_str() != roles[i]) {
            return Err(refuse(format!(
                "changes the role of message {}: `{}` in the item, `{}` in the proposal",
                i + 1,
                original[i].role.as_str(),
                roles[i]
            )));
        }
    }
    let proposed = crate::brief::sample::parse(proposal).map_err(|problems| {
        let first = problems.first().map_or(String::new(), |p| {
            format!(" (line {}: {})", p.line, p.message)
        });
        refuse(format!("is not a valid `format: messages` body{first}"))
    })?;
    if proposed.len() != original.len() {
        return Err(refuse(format!(
            "has {} messages where the item has {}",
            proposed.len(),
            original.len()
        )));
    }
    if let Some(i) = (0..original.len()).find(|&i| original[i].role != proposed[i].role) {
        return Err(refuse(format!(
            "changes the role of message {}: `{}` in the item, `{}` in the proposal",
            i + 1,
            original[i].role.as_str(),
            proposed[i].role.as_str()
        )));
    }
    let mut report = Report::default();
    for (i, (o, p)) in original.iter().zip(&proposed).enumerate() {
        let label = Some(SampleMessage::label(i, o.role));
        let one = check(&o.content, &p.content);
        report.dropped.extend(one.dropped.into_iter().map(|f| Fact {
            in_message: label.clone(),
            ..f
        }));
        report
            .introduced
            .extend(one.introduced.into_iter().map(|f| Fact {
                in_message: label.clone(),
                ..f
            }));
        report
            .changed
            .extend(one.changed.into_iter().map(|c| Change {
                in_message: label.clone(),
                ..c
            }));
        report
            .dropped_instructions
            .extend(
                one.dropped_instructions
                    .into_iter()
                    .map(|d| DroppedInstruction {
                        in_message: label.clone(),
                        ..d
                    }),
            );
        report.context_dropped.extend(one.context_dropped);
        report.coverage.add(&one.coverage);
        for (kind, n) in one.counts {
            *report.counts.entry(kind).or_default() += n;
        }
    }
    Ok(report)
}
