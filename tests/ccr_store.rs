//! The CCR store through its library API: one hash everywhere, expiry with a controlled
//! clock, tombstones, refresh and the bounded sweep.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use briefkit::ccr::{self, Lookup, Store, Strategy};

use crate::common::brief;

pub const T0: i64 = 1_796_029_501_250; // 2026-11-30T09:05:01.250Z

pub fn store_path(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("state").join("ccr.sqlite")
}

/// A store whose clock the test moves by hand.
pub fn clocked(path: &Path) -> (Store, Arc<AtomicI64>) {
    let now = Arc::new(AtomicI64::new(T0));
    let clock = Arc::clone(&now);
    let store = Store::open(path)
        .unwrap()
        .with_clock(move || clock.load(Ordering::SeqCst));
    (store, now)
}

/// `brief` with the store at `path` and no TTL from the caller's environment.
pub fn ccr_cmd(path: &Path) -> assert_cmd::Command {
    let mut cmd = brief();
    cmd.env_remove("BRIEF_CCR_TTL_SECONDS")
        .env("BRIEF_CCR_PATH", path);
    cmd
}

pub fn query(hash: &str) -> ccr::HashQuery {
    ccr::parse_hash(hash).unwrap()
}
#[test]
fn put_then_get_returns_the_original_under_the_sha256_prefix_hash() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = clocked(&store_path(&dir));
    let original = b"line one\nline two\n".as_slice();
    let stored = store
        .put(
            original,
            "line one [...]",
            Strategy::ToolOutputHeadTail,
            "cargo test",
            None,
        )
        .unwrap();
    assert_eq!(stored.hash, ccr::hash(original));
    assert_eq!(stored.hash.len(), 24);
    assert!(!stored.refreshed);
    let Lookup::Found(entry) = store.get(&query(&stored.hash.to_uppercase())).unwrap() else {
        panic!("not found");
    };
    assert_eq!(entry.original, original);
    assert_eq!(entry.compressed, "line one [...]");
    assert_eq!(entry.strategy, Strategy::ToolOutputHeadTail);
    assert_eq!(entry.source, "cargo test");
    assert_eq!(entry.original_bytes, original.len() as u64);
    assert!(entry.original_tokens > 0 && entry.compressed_tokens > 0);
    assert_eq!(
        entry.expires_ms,
        T0 + ccr::ttl::DEFAULT_SECONDS as i64 * 1000
    );
}

#[test]
fn the_full_sha256_finds_the_entry_and_a_wrong_tail_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = clocked(&store_path(&dir));
    let stored = store.put(b"abc", "", Strategy::Manual, "t", None).unwrap();
    let full = "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD";
    assert!(matches!(store.get(&query(full)).unwrap(), Lookup::Found(_)));
    let wrong = format!("{}{}", &stored.hash, "0".repeat(40));
    assert_eq!(store.get(&query(&wrong)).unwrap(), Lookup::Unknown);
}

#[test]
fn expiry_follows_the_injected_clock_and_leaves_a_tombstone() {
    let dir = tempfile::tempdir().unwrap();
    let (store, now) = clocked(&store_path(&dir));
    let stored = store
        .put(
            b"{\"a\":1}",
            "1 item",
            Strategy::JsonCrush,
            "rows",
            Some(60),
        )
        .unwrap();
    now.store(T0 + 59_999, Ordering::SeqCst);
    assert!(matches!(
        store.get(&query(&stored.hash)).unwrap(),
        Lookup::Found(_)
    ));
    now.store(T0 + 60_000, Ordering::SeqCst);
    let Lookup::Expired(tomb) = store.get(&query(&stored.hash)).unwrap() else {
        panic!("expected expired before gc");
    };
    assert_eq!(tomb.strategy, Strategy::JsonCrush);
    assert_eq!(tomb.expires_ms, T0 + 60_000);
    let stats = store.stats().unwrap();
    assert_eq!(
        (stats.total.live, stats.total.expired, stats.awaiting_gc),
        (0, 1, 1)
    );

    let swept = store.gc().unwrap();
    assert_eq!((swept.collected, swept.tombstones), (1, 1));
    assert_eq!(swept.bytes_freed, 7 + 6);
    // Collected, and still expired rather than unknown, long after.
    now.store(T0 + 400 * 86_400_000, Ordering::SeqCst);
    let Lookup::Expired(tomb) = store.get(&query(&stored.hash)).unwrap() else {
        panic!("a collected entry must stay expired, not unknown");
    };
    assert_eq!(
        (tomb.strategy, tomb.source.as_str()),
        (Strategy::JsonCrush, "rows")
    );
    assert_eq!(store.gc().unwrap().collected, 0);
}

#[test]
fn putting_the_same_original_again_refreshes_and_revives() {
    let dir = tempfile::tempdir().unwrap();
    let (store, now) = clocked(&store_path(&dir));
    let first = store
        .put(b"same", "", Strategy::Manual, "a", Some(10))
        .unwrap();
    now.store(T0 + 20_000, Ordering::SeqCst);
    store.gc().unwrap();
    assert!(matches!(
        store.get(&query(&first.hash)).unwrap(),
        Lookup::Expired(_)
    ));
    let again = store
        .put(b"same", "s", Strategy::SummaryBacking, "b", Some(10))
        .unwrap();
    assert_eq!(again.hash, first.hash);
    assert!(again.refreshed);
    assert_eq!(again.created_ms, T0);
    assert_eq!(again.expires_ms, T0 + 30_000);
    let Lookup::Found(entry) = store.get(&query(&first.hash)).unwrap() else {
        panic!("a re-put brings a collected original back");
    };
    // The latest producer is the record of how the entry stands in a prompt now.
    assert_eq!(
        (entry.strategy, entry.source.as_str()),
        (Strategy::SummaryBacking, "b")
    );
    // A shorter TTL never shortens a lifetime already promised.
    let shorter = store
        .put(b"same", "s", Strategy::SummaryBacking, "b", Some(1))
        .unwrap();
    assert_eq!(shorter.expires_ms, T0 + 30_000);
}

#[test]
fn puts_collect_a_bounded_number_of_expired_originals_on_the_side() {
    let dir = tempfile::tempdir().unwrap();
    let (store, now) = clocked(&store_path(&dir));
    for i in 0..40 {
        store
            .put(
                format!("old {i}").as_bytes(),
                "",
                Strategy::Manual,
                "t",
                Some(1),
            )
            .unwrap();
    }
    now.store(T0 + 5_000, Ordering::SeqCst);
    store.put(b"new", "", Strategy::Manual, "t", None).unwrap();
    let stats = store.stats().unwrap();
    assert_eq!(stats.total.expired, 40);
    assert_eq!(stats.awaiting_gc, 8, "one put sweeps 32 of the 40");
}

#[test]
fn an_unknown_hash_is_unknown_not_expired() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = clocked(&store_path(&dir));
    assert_eq!(
        store.get(&query("0123456789abcdef01234567")).unwrap(),
        Lookup::Unknown
    );
}
