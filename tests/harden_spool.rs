//! Issue 37.4: a full spool disk loses no row. The spool lives on a real, small, full
//! filesystem (a 300 KiB tmpfs mounted for the test, so it needs root: CI runs as root),
//! against a real `clickhouse-server`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::clickhouse::ClickHouse;
use crate::common::{brief, stderr};
use crate::fleet::{
    TABLE, calls, counts, init, proxy, spool_files, upstream, wait_rows, wait_stats,
};
use crate::harness::argv_then;

/// A small tmpfs mounted at a new directory, unmounted when dropped.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(size: &str) -> SmallDisk {
        // SAFETY: geteuid only reads the process's credentials.
        if unsafe { libc::geteuid() } != 0 {
            panic!(
                "this test mounts a {size} tmpfs to fill a disk for real, which needs root: run it as root \
                 (CI does), e.g. `sudo -E env PATH=$PATH cargo test --test tests harden_spool`"
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new("mount")
            .args(argv_then(
                "-t tmpfs -o",
                &[&format!("size={size},mode=0700"), "tmpfs"],
            ))
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "mount failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        SmallDisk { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fills what is left of the disk with one file.
    fn fill(&self) -> PathBuf {
        use std::io::Write;
        let path = self.path().join("filler");
        let mut file = std::fs::File::create(&path).unwrap();
        let block = vec![b'#'; 4096];
        while file.write_all(&block).is_ok() {}
        while file.write_all(b"#").is_ok() {}
        let _ = file.sync_all();
        path
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// The rows the spool files hold (lines of `*.jsonl` but the overflow file).
fn spooled_rows(state: &Path) -> usize {
    spool_files(state)
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "jsonl") && !f.ends_with("overflow.jsonl"))
        .map(|f| {
            std::fs::read_to_string(f)
                .unwrap_or_default()
                .lines()
                .count()
        })
        .sum()
}

#[test]
fn a_full_spool_disk_loses_no_acknowledged_row_while_clickhouse_is_up() {
    let ch = ClickHouse::start();
    init(&ch, TABLE);
    let disk = SmallDisk::mount("300k");
    let up = upstream();
    let url = format!("{}?batch_interval=100ms", ch.url(TABLE));
    let mut p = proxy(&up, &url, disk.path(), "machine-a");
    // About 1.2 MB of rows through a 300 KiB disk: it fills many times over.
    let n = 1_500;
    calls(&p, "agent-1", n);
    let stats = wait_stats(&p, Duration::from_secs(60), |s| {
        s["totals"]["calls"] == n && s["sink"]["rows_stored"] == n
    });
    assert_eq!(stats["ledger_errors"], 0, "{stats}");
    assert_eq!(stats["sink"]["overflow_rows"], 0, "{stats}");
    let (_, once, ids) = wait_rows(&ch, TABLE, n as u64, Duration::from_secs(30));
    assert_eq!(
        (once, ids),
        (n as u64, n as u64),
        "every answered call's row, once"
    );
    let (status, err) = p.stop();
    assert!(status.success(), "{err}");
    assert!(err.contains("refused rows"), "the full disk is said: {err}");
}

#[test]
fn ledger_flush_sends_the_spool_of_a_full_disk() {
    let mut ch = ClickHouse::start();
    init(&ch, TABLE);
    ch.stop();
    let disk = SmallDisk::mount("300k");
    let up = upstream();
    let url = format!("{}?batch_interval=100ms&exit_wait=1s", ch.url(TABLE));
    let mut p = proxy(&up, &url, disk.path(), "machine-a");
    calls(&p, "agent-1", 600);
    let _ = wait_stats(&p, Duration::from_secs(20), |s| {
        s["digest_backlog"] == 0 && s["ledger_backlog"] == 0 && s["totals"]["calls"] == 600
    });
    let (_, err) = p.stop();
    // ClickHouse was down and the disk full: what the disk took is in the spool; the rest
    // was held in memory and, with nowhere to go at the end, said to be lost.
    let spooled = spooled_rows(disk.path());
    assert!(spooled > 50, "{spooled} rows spooled; {err}");
    assert!(err.contains("lost with this process"), "{err}");
    let filler = disk.fill();
    ch.restart();
    let flushed = brief()
        .env("XDG_STATE_HOME", disk.path())
        .args(["ledger", "flush", &url])
        .output()
        .unwrap();
    assert_eq!(flushed.status.code(), Some(0), "{}", stderr(&flushed));
    assert_eq!(
        counts(&ch, TABLE).1,
        spooled as u64,
        "every spooled row sent from the full disk"
    );
    assert_eq!(spooled_rows(disk.path()), 0, "the drained files are gone");
    std::fs::remove_file(filler).unwrap();
}
