//! A run's tool calls: every call the session holds open is answered before the next model
//! call. Sub-agents run in process, several at once (std threads, each with the session
//! opened anew: every write takes the session lock, so their appends interleave safely and
//! ids stay unique); the brief's tools run by `--tool-exec`, one after another, or are
//! handed back.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::mpsc;
use std::thread;
use std::time::Instant;

use super::{RunOp, RunRequest};
use crate::error::Result;
use crate::session::Session;
use crate::session::log::Entry;
use crate::session::subagent::Ran;
use crate::session::turn::{PendingCall, TurnRequest};

impl Session {
    /// Answers the open calls it can; returns those left for the caller.
    pub(super) fn answer_open(
        &self,
        request: &RunRequest,
        ops: &mut Vec<RunOp>,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Vec<PendingCall>> {
        let state = self.state()?;
        let open: Vec<Entry> = state.unanswered_calls().into_iter().cloned().collect();
        if open.is_empty() {
            return Ok(Vec::new());
        }
        let (subagents, tools): (Vec<Entry>, Vec<Entry>) = open
            .into_iter()
            .partition(|c| self.is_subagent(c.name.as_deref().unwrap_or_default()));
        let mut waiting = self.run_subagents(&subagents, request, ops, progress)?;
        // Each call was gated when its turn handed it out; the decision stands.
        let turn = turn_request(request);
        let (handed, blocked) = {
            let refs: Vec<&Entry> = tools.iter().collect();
            self.gate_calls(&refs, turn.estimates(), &request.vars)?
        };
        for held in blocked {
            ops.push(RunOp::blocked(&held, "tool"));
        }
        let state = self.state()?;
        for call in handed {
            if let Some(op) = state.operation(&call.operation_id) {
                progress(&format!(
                    "{}: {} `{}` fits at the gate (~{} tokens estimated)",
                    op.id,
                    call.id,
                    call.name,
                    crate::numbers::thousands(op.estimate)
                ));
            }
            let Some(exec) = &request.tool_exec else {
                waiting.push(call);
                continue;
            };
            let started = Instant::now();
            let (output, result_id) = self.execute(exec, &call, progress)?;
            let tokens = self.state()?.entry(&result_id).map(|e| e.tokens);
            ops.push(RunOp {
                operation_id: Some(call.operation_id.clone()),
                kind: "tool",
                name: call.name.clone(),
                call: Some(call.id.clone()),
                outcome: output.outcome.into(),
                result_id: Some(result_id),
                tokens,
                millis: started.elapsed().as_millis() as u64,
            });
        }
        Ok(waiting)
    }

    /// Runs `calls`' sub-agents, at most `request.parallel` at once; returns the calls of
    /// delegated tasks that wait for their own tools.
    fn run_subagents(
        &self,
        calls: &[Entry],
        request: &RunRequest,
        ops: &mut Vec<RunOp>,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Vec<PendingCall>> {
        if calls.is_empty() {
            return Ok(Vec::new());
        }
        let queue = Mutex::new(calls.iter().collect::<VecDeque<_>>());
        let turn = turn_request(request);
        let (tx, rx) = mpsc::channel::<String>();
        let workers = request.parallel.clamp(1, calls.len());
        let results: Vec<Result<Vec<SubagentDone>>> = thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    let tx = tx.clone();
                    let (queue, turn, dir) = (&queue, &turn, &self.dir);
                    scope.spawn(move || -> Result<Vec<SubagentDone>> {
                        let session = Session::open(dir)?;
                        let mut done = Vec::new();
                        while let Some(call) =
                            queue.lock().map(|mut q| q.pop_front()).ok().flatten()
                        {
                            let started = Instant::now();
                            let mut say = |m: &str| {
                                let _ = tx.send(m.to_string());
                            };
                            let ran = session.run_in_turn(call, turn, &mut say)?;
                            for notice in session.notices.borrow_mut().drain(..) {
                                say(&notice.to_string());
                            }
                            done.push(subagent_op(call, ran, started, &session, &mut say));
                        }
                        Ok(done)
                    })
                })
                .collect();
            drop(tx);
            // Progress is heard here, on the caller's thread, as it comes.
            for message in rx {
                progress(&message);
            }
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(crate::error::Error::internal("a sub-agent thread panicked"))
                    })
                })
                .collect()
        });
        let mut waiting = Vec::new();
        let mut first_err = None;
        for result in results {
            match result {
                Ok(done) => {
                    for (op, calls) in done {
                        ops.push(op);
                        waiting.extend(calls);
                    }
                }
                Err(err) => {
                    first_err.get_or_insert(err);
                }
            }
        }
        // A provider failure leaves its call open: the next run runs it again.
        match first_err {
            Some(err) => Err(err),
            None => Ok(waiting),
        }
    }
}

/// A sub-agent's operation, and a delegated task's own calls that wait.
type SubagentDone = (RunOp, Vec<PendingCall>);

fn subagent_op(
    call: &Entry,
    ran: Ran,
    started: Instant,
    session: &Session,
    say: &mut dyn FnMut(&str),
) -> (RunOp, Vec<PendingCall>) {
    let millis = started.elapsed().as_millis() as u64;
    let name = call.name.clone().unwrap_or_default();
    match ran {
        Ran::Blocked(held) => {
            say(&format!(
                "{}: {} `{name}` blocked at the gate (~{} tokens, {} available); the model is told",
                held.operation_id,
                call.id,
                held.gate.estimated_result_tokens,
                held.gate.available_operation_tokens
            ));
            let op = RunOp {
                operation_id: Some(held.operation_id),
                kind: "subagent",
                name,
                call: Some(call.id.clone()),
                outcome: "blocked".into(),
                result_id: held.result_id,
                tokens: None,
                millis,
            };
            (op, Vec::new())
        }
        Ran::Run(run) => {
            let tokens = run
                .result_id
                .as_deref()
                .and_then(|id| session.state().ok()?.entry(id).map(|e| e.tokens));
            say(&format!(
                "{} {} `{name}` ({}): {} in {millis} ms",
                run.operation_id.as_deref().unwrap_or("-"),
                call.id,
                run.outcome,
                match (&run.result_id, tokens) {
                    (Some(id), Some(t)) => format!("{t} tokens as {id}"),
                    _ => "its own tool calls wait".into(),
                }
            ));
            let op = RunOp {
                operation_id: run.operation_id.clone(),
                kind: "subagent",
                name,
                call: Some(call.id.clone()),
                outcome: run.outcome.clone(),
                result_id: run.result_id.clone(),
                tokens,
                millis,
            };
            (op, run.tool_calls)
        }
    }
}

fn turn_request(request: &RunRequest) -> TurnRequest {
    TurnRequest {
        vars: request.vars.clone(),
        model: request.model.clone(),
        tool_estimate: request.tool_estimate,
        subagent_estimate: request.subagent_estimate,
        ..TurnRequest::default()
    }
}
