//! `GET /api/limits` says the limits the server enforces, from their one definition: the
//! upload size it names is the one the server refuses one byte past (413), and the run length
//! and slack are the configured ones.

mod support;

use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_limits_said_are_the_limits_enforced() {
    let db = TestDb::new(&Backend::Sqlite).await;
    let mut config = config(&db);
    config.player_ticks_max = 600;
    config.ticket_slack_ms = 900;
    let server = TestServer::start(config).await;
    let (http, base) = (&server.http, server.base.as_str());
    let (status, limits) = get_json(http, &format!("{base}/api/limits")).await;
    assert_eq!(status, 200, "{limits}");
    assert_eq!(limits["run_ticks_max"], 600);
    assert_eq!(limits["realtime_slack_ms"], 900);
    assert_eq!(limits["tick_rate"], 60);
    assert_eq!(limits["room_racers_max"], 8);
    let max = limits["replay_bytes_max"].as_u64().unwrap();
    assert_eq!(max, pogo_server::limits::upload_body_limit(600));
    let token = register(http, base, "ana").await;
    // At the limit the body is read (and is no replay: 400); one byte past, it is refused
    // unread (413).
    let (status, body) = upload(http, base, &token, &vec![0u8; max as usize]).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("bad_replay")),
        "{body}"
    );
    let (status, body) = upload(http, base, &token, &vec![0u8; max as usize + 1]).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (413, Some("body_too_large")),
        "{body}"
    );
    server.stop().await;
    db.remove().await;
}
