//! Parsing a ClickHouse ledger URL: what is accepted, what is refused, and that a password
//! never shows.

use super::*;

fn parse(url: &str) -> Result<Target> {
    Target::parse(url, |_| None)
}

#[test]
fn a_clickhouse_url_names_server_table_user_and_options() {
    let t = parse("clickhouse://brief:s3cret@127.0.0.1/fleet.usage?batch_rows=500&batch_interval=250ms&spool_limit=64MiB&async_insert=1").unwrap();
    assert_eq!(t.base, "http://127.0.0.1:8123");
    assert_eq!((t.database.as_str(), t.table.as_str()), ("fleet", "usage"));
    assert_eq!(t.user, "brief");
    assert_eq!(t.password.as_ref().unwrap().expose(), "s3cret");
    assert_eq!(t.options.batch_rows, 500);
    assert_eq!(t.options.batch_interval, Duration::from_millis(250));
    assert_eq!(t.options.spool_limit, 64 << 20);
    assert_eq!(t.settings, [("async_insert".to_string(), "1".to_string())]);
    let shown = format!("{} {:?}", t.display(), t);
    assert!(!shown.contains("s3cret"), "{shown}");
    assert_eq!(t.display(), "clickhouse://brief@127.0.0.1:8123/fleet.usage");
}

#[test]
fn http_urls_keep_their_port_and_the_password_may_come_from_the_environment() {
    let t = Target::parse("https://ch.example:9443/usage", |name| {
        (name == PASSWORD_VAR).then(|| "from-env".to_string())
    })
    .unwrap();
    assert_eq!(t.base, "https://ch.example:9443");
    assert_eq!(t.table_name(), "default.usage");
    assert_eq!(t.user, "default");
    assert_eq!(t.password.unwrap().expose(), "from-env");
    let t = parse("clickhouse://h/db.t?secure=1").unwrap();
    assert_eq!(t.base, "https://h:8443");
    // What is shown parses back to the same table.
    assert_eq!(parse(&t.display()).unwrap().identity(), t.identity());
    let t = parse("clickhouse://us%40er:p%3Ass@h/db.t").unwrap();
    assert_eq!(
        (t.user.as_str(), t.password.unwrap().expose()),
        ("us@er", "p:ss")
    );
}

#[test]
fn bad_urls_are_refused_without_their_password() {
    for url in [
        "clickhouse://u:topsecret@h/",
        "clickhouse://u:topsecret@h/db.t?batch_rows=0",
        "clickhouse://u:topsecret@h/db.t-x",
        "clickhouse://u:topsecret@h/db.t?bad-option=1",
        "ftp://u:topsecret@h/db.t",
    ] {
        let err = parse(url).unwrap_err();
        assert!(!err.message.contains("topsecret"), "{}", err.message);
        assert!(err.message.contains("u@h"), "{}", err.message);
    }
}

#[test]
fn sizes_parse_with_units() {
    assert_eq!(parse_size("512MiB"), Ok(512 << 20));
    assert_eq!(parse_size("1gb"), Ok(1_000_000_000));
    assert_eq!(parse_size("4096"), Ok(4096));
    assert!(parse_size("0").is_err());
    assert!(parse_size("12 parsecs").is_err());
}
