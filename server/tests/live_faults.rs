//! Live races against the faults an operator meets, with the real binary, on SQLite and a
//! real PostgreSQL: the room's process killed (`kill -9`) or stopped (SIGTERM) mid-race and
//! started again; a home that dies under a proxy while another process on the same
//! PostgreSQL takes the room up; a room that cannot be taken up. What each asserts is what a
//! racer was promised (docs/live.md, "When a server stops or dies"):
//!
//! - nothing acknowledged is lost: the `welcome` after the restart holds at least every
//!   message an `ack` covered before the crash;
//! - every racer who reaches the finish is filed verified, once, with the replay an
//!   uninterrupted race records (the oracle's bytes), real-time when the outage stayed
//!   within the slack;
//! - a proxied racer whose room's home died is told so (4503 and a reason), not left with a
//!   bare 1005;
//! - no room stays `racing` for ever: one that cannot be taken up is ended within seconds,
//!   and its view says why.
//!
//! Each prints its figures (how long the process took to stop and to start again, how long
//! the racers were away): docs/operations.md quotes them.

mod support;

use std::time::{Duration, Instant};

use pogo_server::live::client::{Client, Event};
use pogo_server::live::wire::{LiveServerMessage, RacerState, Role};
use serde_json::Value;
use support::live::*;
use support::*;

/// How the room's process goes away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    Kill9,
    Term,
}

/// Game time (µs) the racers stream up to before the fault: about half the dash.
const BEFORE_FAULT_US: i64 = 800_000;

/// The slack the drills run with (ms): a restart of a debug build on a machine busy with
/// other builds fits (one took over 6 s once).
const SLACK_MS: &str = "12000";

fn server_args<'a>(db: &'a TestDb, level: &'a str, slack_ms: &'a str) -> Vec<&'a str> {
    let mut args = vec![
        "--database",
        db.url.as_str(),
        "--level",
        level,
        "--workers",
        "1",
        "--ticket-slack-ms",
        slack_ms,
    ];
    args.extend_from_slice(&NO_RATE_LIMITS);
    args
}

/// Writes the dash level's file into `dir`; its path.
fn dash_file(dir: &std::path::Path) -> String {
    let file = dir.join("dash.json");
    std::fs::write(&file, pogo_replay::level_to_json(&dash_level())).unwrap();
    file.display().to_string()
}

/// Joins `room` at `base` again with `key`, trying until welcomed (the room may still be on
/// its way back) for at most `within`: the seat, and how long it took.
async fn rejoin(base: &str, room: &str, key: &str, within: Duration) -> (Seat, Duration) {
    let started = Instant::now();
    let mut last = String::new();
    while started.elapsed() < within {
        if let Ok(mut client) = Client::connect(base, room).await {
            if client.hello(Role::Racer, None, Some(key)).await.is_ok() {
                loop {
                    match tokio::time::timeout(Duration::from_secs(5), client.next()).await {
                        Ok(Some(Event::Control(LiveServerMessage::Welcome {
                            racer,
                            key,
                            acked,
                            ..
                        }))) => {
                            let seat = Seat {
                                client,
                                racer: racer.unwrap(),
                                key: key.unwrap(),
                                acked,
                            };
                            return (seat, started.elapsed());
                        }
                        Ok(Some(Event::Closed { code, reason })) => {
                            last = format!("{code}: {reason}");
                            break;
                        }
                        Ok(Some(_)) => {}
                        _ => break,
                    }
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("not back in room {room} within {within:?} (last: {last})");
}

/// What a racer's socket saw before the fault: the last ack, and how it closed.
#[derive(Debug)]
struct BeforeFault {
    acked: Option<u32>,
    closed: (u16, String),
}

/// Streams `stream`'s messages with game time under [`BEFORE_FAULT_US`] at real pace, and
/// reads (in a task) until the socket closes: what it saw.
fn race_first_half(
    seat: Seat,
    stream: Vec<(pogo_server::live::wire::Stream, i64)>,
    go: i64,
) -> (
    tokio::task::JoinHandle<()>,
    tokio::task::JoinHandle<BeforeFault>,
) {
    let (mut tx, mut rx) = seat.client.split();
    let sender = tokio::spawn(async move {
        let first: Vec<_> = stream
            .into_iter()
            .filter(|(_, t)| *t < BEFORE_FAULT_US)
            .collect();
        send_from(&mut tx, &first, 0, go, 1.0, 10).await;
        // Kept open until the fault closes it.
        tokio::time::sleep(Duration::from_secs(60)).await;
        drop(tx);
    });
    let reader = tokio::spawn(async move {
        let mut acked = None;
        loop {
            match tokio::time::timeout(Duration::from_secs(60), rx.next()).await {
                Ok(Some(Event::Ack(seq))) => acked = Some(seq),
                Ok(Some(Event::Closed { code, reason })) => {
                    return BeforeFault {
                        acked,
                        closed: (code, reason),
                    };
                }
                Ok(Some(_)) => {}
                Ok(None) => {
                    return BeforeFault {
                        acked,
                        closed: (1006, "no close frame".into()),
                    };
                }
                Err(_) => panic!("the socket stayed open 60 s"),
            }
        }
    });
    (sender, reader)
}

/// Sends the rest of `stream`, after what the welcome says is held, at real pace, and reads
/// until both racers' runs are filed: the room's last view.
fn race_second_half(
    seat: Seat,
    stream: Vec<(pogo_server::live::wire::Stream, i64)>,
    go: i64,
) -> tokio::task::JoinHandle<pogo_server::live::wire::RoomView> {
    let from = seat.acked.map_or(0, |a| a as usize + 1);
    let (mut tx, mut rx) = seat.client.split();
    tokio::spawn(async move {
        send_from(&mut tx, &stream, from, go, 1.0, 10).await;
        let seen = read_until_filed(&mut rx, 2).await;
        drop(tx);
        seen.1
    })
}

/// The last of the racers' final views.
async fn last_view(
    finishers: Vec<tokio::task::JoinHandle<pogo_server::live::wire::RoomView>>,
) -> pogo_server::live::wire::RoomView {
    let mut views = Vec::new();
    for f in finishers {
        views.push(f.await.unwrap());
    }
    views.pop().unwrap()
}

/// The number of runs filed from `room`.
async fn runs_of_room(db: &TestDb, room: &str) -> i64 {
    const SQL: &str = "SELECT COUNT(*) FROM runs WHERE room_id = $1";
    if db.url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
        let n: i64 = sqlx::query_scalar(SQL)
            .bind(room)
            .fetch_one(&pool)
            .await
            .unwrap();
        pool.close().await;
        n
    } else {
        let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
        let n: i64 = sqlx::query_scalar(SQL)
            .bind(room)
            .fetch_one(&pool)
            .await
            .unwrap();
        pool.close().await;
        n
    }
}

/// Polls `GET /api/rooms/{room}` until `done` holds (at most `within`): the view.
async fn room_until(
    http: &reqwest::Client,
    base: &str,
    room: &str,
    within: Duration,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let started = Instant::now();
    loop {
        let (_, view) = get_json(http, &format!("{base}/api/rooms/{room}")).await;
        if done(&view) {
            return view;
        }
        assert!(
            started.elapsed() < within,
            "room {room} not as expected within {within:?}: {view}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Two named racers and a spectator in one process; at half the dash the process is killed
/// or stopped and started again at the same address; both racers take their seats back with
/// their keys and finish. Every drill on both databases.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_race_outlives_its_process_killed_or_stopped() {
    for backend in backends().await {
        for fault in [Fault::Kill9, Fault::Term] {
            one_process_drill(&backend, fault).await;
        }
    }
}

async fn one_process_drill(backend: &Backend, fault: Fault) {
    let db = TestDb::new(backend).await;
    let dir = tempfile::tempdir().unwrap();
    let level = dash_file(dir.path());
    let args = server_args(&db, &level, SLACK_MS);
    let first = ServerProcess::start(&args, &dir.path().join("first.log")).await;
    let http = client();
    let names = ["ann", "bob"];
    let mut seats = Vec::new();
    for name in names {
        let token = register(&http, &first.base, name).await;
        if seats.is_empty() {
            let room = create_room(&http, &first.base).await;
            seats.push((room, Vec::new()));
        }
        let room = seats[0].0.clone();
        let seat = join(&first.base, &room, Some(&token), None).await;
        seats[0].1.push(seat);
    }
    let (room, mut seats) = seats.pop().unwrap();
    let mut watcher = Client::connect(&first.base, &room).await.unwrap();
    watcher.hello(Role::Spectator, None, None).await.unwrap();
    let go = ready_all(&mut seats).await;
    let streams = [stream_of(&events(127)), stream_of(&events(110))];
    let keys: Vec<String> = seats.iter().map(|s| s.key.clone()).collect();
    let mut halves = Vec::new();
    for (seat, stream) in seats.into_iter().zip(streams.iter().cloned()) {
        halves.push(race_first_half(seat, stream, go));
    }
    // Half the dash raced, acks and all in flight: the fault.
    let fault_at_us = go * 1000 + BEFORE_FAULT_US + 30_000;
    tokio::time::sleep(Duration::from_micros(
        (fault_at_us - now_us_i64()).max(0) as u64
    ))
    .await;
    let down = Instant::now();
    let stopped_in = match fault {
        Fault::Kill9 => {
            first.killer()();
            down.elapsed()
        }
        Fault::Term => first
            .terminate(Duration::from_secs(30))
            .expect("SIGTERM: the process exits within 30 s"),
    };
    let mut before = Vec::new();
    for (sender, reader) in halves {
        sender.abort();
        before.push(reader.await.unwrap());
    }
    if fault == Fault::Term {
        for b in &before {
            assert_eq!(
                b.closed.0, 1012,
                "a stop tells each racer to come back: {b:?}"
            );
            assert!(b.closed.1.contains("key"), "{b:?}");
        }
    }
    let second = ServerProcess::start_at(&args, &dir.path().join("second.log"), first.port()).await;
    let restarted = down.elapsed();
    let mut finishers = Vec::new();
    for (racer, key) in keys.iter().enumerate() {
        let (seat, took) = rejoin(&second.base, &room, key, Duration::from_secs(15)).await;
        let was = before[racer].acked;
        assert_eq!(seat.racer, racer as u8);
        assert!(
            seat.acked >= was,
            "{fault:?} on {}: racer {racer} was told {was:?} is held, the welcome says {:?}",
            backend.name(),
            seat.acked
        );
        eprintln!(
            "{} {fault:?}: racer {racer} acked {was:?} before, welcome {:?}, back {:.2} s after the fault ({took:.2?} after the restart)",
            backend.name(),
            seat.acked,
            down.elapsed().as_secs_f64(),
        );
        finishers.push(race_second_half(seat, streams[racer].clone(), go));
    }
    let view = last_view(finishers).await;
    let date = pogo_server::times::rfc3339_seconds(go);
    for (racer, name) in names.iter().enumerate() {
        let r = &view.racers[racer];
        assert_eq!(r.state, RacerState::Finished, "{r:?}");
        assert!(
            r.realtime,
            "an outage within the slack stays real-time: {r:?}"
        );
        let id = r.run_id.expect("filed");
        let status = run_status(&http, &second.base, id).await;
        assert_eq!(status["status"], "verified", "{status}");
        assert_eq!(status["realtime"], true, "{status}");
        let steer = [127, 110][racer];
        assert_eq!(
            replay_bytes(&http, &second.base, id).await,
            reference(&events(steer), name, &date),
            "racer {racer}'s replay is the uninterrupted race's, byte for byte"
        );
    }
    assert_eq!(runs_of_room(&db, &room).await, 2, "each run filed once");
    eprintln!(
        "{} {fault:?}: stopped in {:.2} s, serving again {:.2} s after the fault; both racers filed verified and real-time",
        backend.name(),
        stopped_in.as_secs_f64(),
        restarted.as_secs_f64()
    );
    drop(watcher);
    drop(second);
    db.remove().await;
}

fn now_us_i64() -> i64 {
    pogo_server::live::now_us()
}

/// Two processes on one PostgreSQL: the room lives in A, one racer joined through B
/// (proxied). A is killed mid-race: the proxied racer is told why (4503 and a reason); B
/// takes the room up once A's row goes stale, both racers take their seats back through B
/// and finish, filed verified.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_process_takes_up_a_dead_homes_race() {
    let Some(backend) = postgres_backend().await else {
        return;
    };
    let db = TestDb::new(&backend).await;
    let dir = tempfile::tempdir().unwrap();
    let level = dash_file(dir.path());
    let args = server_args(&db, &level, "20000");
    let a = ServerProcess::start(&args, &dir.path().join("a.log")).await;
    let b = ServerProcess::start(&args, &dir.path().join("b.log")).await;
    let http = client();
    let tokens = [
        register(&http, &a.base, "cat").await,
        register(&http, &b.base, "dan").await,
    ];
    let room = create_room(&http, &a.base).await;
    let mut seats = vec![
        join(&a.base, &room, Some(&tokens[0]), None).await,
        join(&b.base, &room, Some(&tokens[1]), None).await,
    ];
    let go = ready_all(&mut seats).await;
    let streams = [stream_of(&events(127)), stream_of(&events(110))];
    let keys: Vec<String> = seats.iter().map(|s| s.key.clone()).collect();
    let mut halves = Vec::new();
    for (seat, stream) in seats.into_iter().zip(streams.iter().cloned()) {
        halves.push(race_first_half(seat, stream, go));
    }
    let fault_at_us = go * 1000 + BEFORE_FAULT_US + 30_000;
    tokio::time::sleep(Duration::from_micros(
        (fault_at_us - now_us_i64()).max(0) as u64
    ))
    .await;
    let down = Instant::now();
    a.killer()();
    let mut before = Vec::new();
    for (sender, reader) in halves {
        sender.abort();
        before.push(reader.await.unwrap());
    }
    assert_eq!(
        before[1].closed.0, 4503,
        "the proxied racer is told its room's server went away: {:?}",
        before[1]
    );
    assert!(!before[1].closed.1.is_empty());
    let mut finishers = Vec::new();
    for (racer, key) in keys.iter().enumerate() {
        let (seat, _) = rejoin(&b.base, &room, key, Duration::from_secs(15)).await;
        assert!(
            seat.acked >= before[racer].acked,
            "nothing acknowledged lost"
        );
        eprintln!(
            "postgres, two processes: racer {racer} back through the other process {:.2} s after the kill (acked {:?}, welcome {:?})",
            down.elapsed().as_secs_f64(),
            before[racer].acked,
            seat.acked
        );
        finishers.push(race_second_half(seat, streams[racer].clone(), go));
    }
    let view = last_view(finishers).await;
    let date = pogo_server::times::rfc3339_seconds(go);
    for (racer, name) in ["cat", "dan"].iter().enumerate() {
        let r = &view.racers[racer];
        assert_eq!(r.state, RacerState::Finished, "{r:?}");
        let id = r.run_id.expect("filed");
        let status = run_status(&http, &b.base, id).await;
        assert_eq!(status["status"], "verified", "{status}");
        assert_eq!(
            replay_bytes(&http, &b.base, id).await,
            reference(&events([127, 110][racer]), name, &date)
        );
    }
    assert_eq!(runs_of_room(&db, &room).await, 2, "each run filed once");
    drop(b);
    db.remove().await;
}

/// A process killed mid-race comes back without the room's level: the room cannot be taken
/// up, so it is ended at once (not left `racing`), and its view says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_that_cannot_be_taken_up_is_ended_and_says_why() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let dir = tempfile::tempdir().unwrap();
        let level = dash_file(dir.path());
        let first = ServerProcess::start(
            &server_args(&db, &level, SLACK_MS),
            &dir.path().join("first.log"),
        )
        .await;
        let http = client();
        let token = register(&http, &first.base, "eve").await;
        let room = create_room(&http, &first.base).await;
        let mut seats = vec![join(&first.base, &room, Some(&token), None).await];
        let go = ready_all(&mut seats).await;
        let seat = seats.pop().unwrap();
        let (_sender, reader) = race_first_half(seat, stream_of(&events(127)), go);
        let fault_at_us = go * 1000 + BEFORE_FAULT_US;
        tokio::time::sleep(Duration::from_micros(
            (fault_at_us - now_us_i64()).max(0) as u64
        ))
        .await;
        first.killer()();
        let _ = reader.await;
        // Started again serving another level only: `dash` is not run here any more.
        let other = dir.path().join("other.json");
        std::fs::write(
            &other,
            pogo_replay::level_to_json(&track("other", 60, &[5], 12)),
        )
        .unwrap();
        let other = other.display().to_string();
        let args = server_args(&db, &other, SLACK_MS);
        let restarted = Instant::now();
        let second =
            ServerProcess::start_at(&args, &dir.path().join("second.log"), first.port()).await;
        let view = room_until(&http, &second.base, &room, Duration::from_secs(10), |v| {
            v["phase"] == "over"
        })
        .await;
        let note = view["note"].as_str().unwrap_or_default().to_string();
        assert!(note.contains("could not be taken up"), "{view}");
        eprintln!(
            "{}: a room that cannot be taken up ended {:.2} s after the restart: {note:?}",
            backend.name(),
            restarted.elapsed().as_secs_f64()
        );
        drop(second);
        db.remove().await;
    }
}
