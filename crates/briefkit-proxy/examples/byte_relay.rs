//! BENCHMARKS.md, "Proxy: paced calls": the floor a relay in front of an upstream costs.
//! Copies bytes both ways between each client connection and a new connection to the
//! upstream, on the same tokio runtime as `brief proxy`, and does nothing else (no HTTP
//! parsing, no ledger). `benches/proxy_wires.py` runs it beside `brief proxy`.
//!
//! `cargo run --release -p briefkit-proxy --example byte_relay -- 127.0.0.1:UPSTREAM_PORT`
//! prints `http://127.0.0.1:PORT` (the port it listens on) on its first line.

use std::io::Write;

use tokio::net::{TcpListener, TcpStream};

fn main() -> std::io::Result<()> {
    let upstream = std::env::args()
        .nth(1)
        .expect("usage: byte_relay UPSTREAM_HOST:PORT");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let mut out = std::io::stdout();
        writeln!(out, "http://{}", listener.local_addr()?)?;
        out.flush()?;
        loop {
            let (mut client, _) = listener.accept().await?;
            let upstream = upstream.clone();
            tokio::spawn(async move {
                let Ok(mut server) = TcpStream::connect(&upstream).await else {
                    return;
                };
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
            });
        }
    })
}
