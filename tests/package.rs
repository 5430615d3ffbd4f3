//! The Debian package an operator installs: `scripts/deb` packages the binary this test
//! build made (no second, release build), `dpkg -i` installs it, and what it installed is
//! there: `brief` on PATH and working, a man page per command, the completions, and a
//! `brief-proxy.service` that `systemd-analyze verify` accepts, sandboxed, with its ledger
//! in its state directory. Installing needs root (CI runs as root; `scripts/test` installs
//! cargo-deb and systemd-analyze); as another user the test says so and checks nothing.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const UNIT: &str = "/usr/lib/systemd/system/brief-proxy.service";

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn have(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_debian_package_installs_brief_its_man_pages_and_a_unit_systemd_accepts() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("package test: not root, so the .deb is not installed (CI runs it as root)");
        return;
    }
    assert!(
        have("cargo", &["deb", "--version"]),
        "cargo-deb is missing: `cargo install cargo-deb --locked` (scripts/test --setup does it)"
    );
    assert!(
        have("systemd-analyze", &["--version"]),
        "systemd-analyze is missing: `apt-get install systemd` (scripts/test --setup does it)"
    );
    // An operator's own install of the package is never replaced (or purged) by a test.
    let status = Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", "brief"])
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&status.stdout).ends_with(" installed"),
        "the brief package is installed on this machine: remove it (dpkg --purge brief) to run this test"
    );
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // The binary under test lives in TARGET/debug: package that one.
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_brief"));
    let target = bin.parent().and_then(Path::parent).unwrap();
    let deb = run(Command::new("bash")
        .arg(repo.join("scripts/deb"))
        .args(["--profile", "dev", "--no-build"])
        .current_dir(&repo)
        .env("CARGO_TARGET_DIR", target));
    let deb = PathBuf::from(deb.trim());
    assert!(deb.is_file(), "{}", deb.display());

    let contents = run(Command::new("dpkg-deb").arg("--contents").arg(&deb));
    for path in [
        "./usr/bin/brief",
        "./usr/share/man/man1/brief.1",
        "./usr/share/man/man1/brief-proxy.1",
        "./usr/share/bash-completion/completions/brief",
        "./usr/lib/systemd/system/brief-proxy.service",
        "./etc/default/brief-proxy",
    ] {
        assert!(
            contents.contains(path),
            "{path} is not in the package:\n{contents}"
        );
    }

    run(Command::new("dpkg").arg("-i").arg(&deb));
    let installed = || {
        let version = run(Command::new("/usr/bin/brief").arg("--version"));
        assert!(version.starts_with("brief "), "{version}");
        let man = Path::new("/usr/share/man/man1");
        assert!(
            man.join("brief.1.gz").is_file() || man.join("brief.1").is_file(),
            "brief.1 is installed"
        );
        assert!(
            man.join("brief-compress.1.gz").is_file() || man.join("brief-compress.1").is_file(),
            "a page per command is installed"
        );
        let unit = fs::read_to_string(UNIT).unwrap();
        for line in [
            "DynamicUser=yes",
            "StateDirectory=brief-proxy",
            "Environment=BRIEF_LEDGER=/var/lib/brief-proxy/usage.jsonl",
            "ProtectSystem=strict",
            "NoNewPrivileges=yes",
            "ExecStart=/usr/bin/brief proxy",
        ] {
            assert!(unit.contains(line), "the unit has {line}:\n{unit}");
        }
        // `verify` loads the unit as systemd would, and fails on what it rejects.
        let verify = Command::new("systemd-analyze")
            .args(["verify", UNIT])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&verify.stderr).into_owned();
        assert!(
            verify.status.success(),
            "systemd-analyze verify rejected the unit:\n{said}"
        );
        assert!(
            !said.contains("brief-proxy.service:"),
            "systemd-analyze warned about the unit:\n{said}"
        );
    };
    let outcome = std::panic::catch_unwind(installed);
    // Leave the machine as it was, whatever the checks found.
    run(Command::new("dpkg").args(["--purge", "brief"]));
    assert!(!Path::new("/usr/bin/brief").exists());
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}
