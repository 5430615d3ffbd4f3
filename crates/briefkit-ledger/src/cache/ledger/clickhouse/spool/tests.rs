//! The spool: rows durable before they are sent, replayed in order, never lost or doubled
//! across restarts.

use super::*;

fn spool() -> (tempfile::TempDir, Spool) {
    let dir = tempfile::tempdir().unwrap();
    let target = Target::parse("clickhouse://h/db.t", |_| None).unwrap();
    let spool = Spool::open(dir.path(), &target).unwrap();
    (dir, spool)
}

fn line(model: &str) -> Vec<u8> {
    let mut out = serde_json::to_vec(&Entry::new("proxy", "openai", model)).unwrap();
    out.push(b'\n');
    out
}

#[test]
fn batches_resume_from_the_ack_and_a_batch_in_flight_is_read_again_whole() {
    let (_tmp, spool) = spool();
    let mut own = spool.create().unwrap();
    for m in ["a", "b", "c"] {
        own.append(&line(m), true).unwrap();
    }
    let mut cursor = own.cursor(spool.dir()).unwrap();
    let batch = cursor.read(own.len, 2, false).unwrap();
    assert_eq!(batch.rows.len(), 2);
    cursor.begin(batch.end, "b1").unwrap();
    own.append(&line("d"), true).unwrap();
    // Reopened (as after a crash): the batch in flight comes back as it was.
    let again = Cursor::open(
        spool.dir(),
        own.name.clone(),
        own.file.try_clone().unwrap(),
        own.len,
    )
    .unwrap();
    assert_eq!(again.inflight.as_ref().unwrap().batch_id, "b1");
    let same = again.read(own.len, 100, false).unwrap();
    assert_eq!(same.end, batch.end);
    assert_eq!(same.rows.len(), 2);
    cursor.acknowledge(batch.end).unwrap();
    let rest = cursor.read(own.len, 100, false).unwrap();
    let models: Vec<&str> = rest.rows.iter().map(|(_, e)| e.model.as_str()).collect();
    assert_eq!(models, ["c", "d"]);
    assert_eq!(cursor.count_rows(own.len), 2);
}

#[test]
fn a_dead_owners_file_is_adopted_with_its_torn_tail_skipped() {
    let (_tmp, spool) = spool();
    let name = {
        let mut own = spool.create().unwrap();
        own.append(&line("a"), true).unwrap();
        own.append(b"{\"time\":\"2026", true).unwrap();
        // A live owner's file is not adopted.
        assert!(spool.adopt(&HashSet::new()).is_empty());
        own.name.clone()
    };
    let adopted = spool.adopt(&HashSet::new());
    assert_eq!(adopted.len(), 1);
    assert_eq!(adopted[0].name, name);
    let batch = adopted[0].read(adopted[0].len, 100, true).unwrap();
    assert_eq!((batch.rows.len(), batch.skipped), (1, 1));
    assert_eq!(batch.end, adopted[0].len);
    // Held by this process now: a second look finds nothing to adopt.
    assert!(spool.adopt(&HashSet::new()).is_empty());
    for cursor in adopted {
        cursor.remove();
    }
    assert!(spool.adopt(&HashSet::new()).is_empty());
    assert_eq!(spool.pending_bytes(), 0);
}
