//! A real ClickHouse server for the fleet tests: `clickhouse-server` (the Debian package;
//! `.ci/run` installs it) started as a plain process on free loopback ports with a
//! temporary data directory and a user with a password, stopped, killed and restarted
//! on the same data as a test says. A missing binary fails the test with what to install:
//! these tests are never skipped.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::proxy::send;

pub const USER: &str = "fleet";
pub const PASSWORD: &str = "pw-fleet-7c2e9a";

pub struct ClickHouse {
    pub port: u16,
    tcp_port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The server binary: `CLICKHOUSE_SERVER`, else what the Debian package installs.
fn binary() -> PathBuf {
    find_binary(
        std::env::var_os("CLICKHOUSE_SERVER").map(PathBuf::from),
        &["/usr/sbin/clickhouse-server", "/usr/bin/clickhouse-server"],
    )
}

/// The first of `named` and `candidates` that exists; a test fails with how to install
/// the server when none does (these tests are never skipped).
pub fn find_binary(named: Option<PathBuf>, candidates: &[&str]) -> PathBuf {
    let found = match named {
        Some(path) => path.exists().then_some(path),
        None => candidates
            .iter()
            .map(PathBuf::from)
            .find(|path| path.exists()),
    };
    found.unwrap_or_else(|| {
        panic!(
            "clickhouse-server is not installed: these tests run against a real ClickHouse. {INSTALL}"
        )
    })
}

const INSTALL: &str = "Install it with `sudo apt-get install -y clickhouse-server clickhouse-client` \
     (Debian's package; .ci/run does when it is missing), or point CLICKHOUSE_SERVER at the binary";

impl ClickHouse {
    /// Starts a fresh server and waits until it answers.
    pub fn start() -> ClickHouse {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["data", "tmp", "user_files", "log"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        let mut server = ClickHouse {
            port: free_port(),
            tcp_port: free_port(),
            dir,
            child: None,
        };
        server.write_config();
        server.launch();
        server
    }

    fn write_config(&self) {
        let d = self.dir.path().display();
        let config = format!(
            r#"<?xml version="1.0"?>
<yandex>
    <logger><level>warning</level><log>{d}/log/server.log</log><errorlog>{d}/log/error.log</errorlog><size>10M</size><count>1</count></logger>
    <listen_host>127.0.0.1</listen_host>
    <http_port>{http}</http_port>
    <tcp_port>{tcp}</tcp_port>
    <path>{d}/data/</path>
    <tmp_path>{d}/tmp/</tmp_path>
    <user_files_path>{d}/user_files/</user_files_path>
    <users_config>users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <mark_cache_size>268435456</mark_cache_size>
    <uncompressed_cache_size>0</uncompressed_cache_size>
    <max_concurrent_queries>50</max_concurrent_queries>
    <timezone>UTC</timezone>
</yandex>
"#,
            http = self.port,
            tcp = self.tcp_port,
        );
        let users = format!(
            r#"<?xml version="1.0"?>
<yandex>
    <profiles><default><max_memory_usage>1000000000</max_memory_usage></default></profiles>
    <users>
        <{USER}>
            <password>{PASSWORD}</password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </{USER}>
    </users>
    <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
        <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
"#
        );
        std::fs::write(self.dir.path().join("config.xml"), config).unwrap();
        std::fs::write(self.dir.path().join("users.xml"), users).unwrap();
    }

    fn launch(&mut self) {
        let config = self.dir.path().join("config.xml");
        let child = Command::new(binary())
            .arg(format!("--config-file={}", config.display()))
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start clickhouse-server: {e}. {INSTALL}"));
        self.child = Some(child);
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(30) {
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                let log = std::fs::read_to_string(self.dir.path().join("log/error.log"))
                    .unwrap_or_default();
                panic!("clickhouse-server exited at start ({status}): {log}");
            }
            if self.ping() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("clickhouse-server did not answer within 30 s");
    }

    fn ping(&self) -> bool {
        std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok()
            && send(&self.base(), "GET", "/ping", &[], b"").0 == 200
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The URL of `table` (`database.table`) with the user and password.
    pub fn url(&self, table: &str) -> String {
        format!(
            "clickhouse://{USER}:{PASSWORD}@127.0.0.1:{}/{table}",
            self.port
        )
    }

    /// Runs a statement; panics on an error status.
    pub fn query(&self, sql: &str) -> String {
        let (status, _, body) = send(
            &self.base(),
            "POST",
            "/",
            &[("X-ClickHouse-User", USER), ("X-ClickHouse-Key", PASSWORD)],
            sql.as_bytes(),
        );
        let body = String::from_utf8_lossy(&body).into_owned();
        assert_eq!(status, 200, "{sql}: {body}");
        body
    }

    /// A number a query returns.
    pub fn count(&self, sql: &str) -> u64 {
        self.query(sql).trim().parse().unwrap()
    }

    /// SIGTERM, and wait for the process to end.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            super::proxy::terminate_pid(child.id());
            let _ = child.wait();
        }
    }

    /// SIGKILL: no shutdown at all.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// SIGSTOP: the server holds connections and answers nothing (a hung store).
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// SIGCONT after [`ClickHouse::pause`].
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, which: &str) {
        let pid = self.child.as_ref().expect("running").id();
        Command::new("kill")
            .args([which, &pid.to_string()])
            .status()
            .unwrap();
    }

    /// Starts the server again on the same data and ports.
    pub fn restart(&mut self) {
        assert!(self.child.is_none(), "stop or kill it first");
        self.launch();
    }
}

impl Drop for ClickHouse {
    fn drop(&mut self) {
        self.kill();
    }
}
