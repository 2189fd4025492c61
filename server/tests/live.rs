//! Live races over real WebSockets on loopback, against SQLite and a real PostgreSQL: racers
//! race through a room, each receives the others' streams in order, a spectator who joins
//! mid-race gets the stream so far, and at each finish the run is filed verified (its replay
//! the bytes an independent tick-by-tick reference records), real-time when every message
//! came on time. A slowed racer is filed open only; a cut racer resumes from the last ack and
//! loses nothing; one cut for good is kept, unranked. Every bad message closes its socket
//! with a code and a reason and changes nothing. Two server processes on one PostgreSQL share
//! rooms (a join at the other process is proxied to the room's home). A new room is in its
//! process's map before its row is written, so a sweep never takes it up from its empty
//! journal.
//!
//! The racers are Rust clients (`pogo_server::live::client`) sending what a page sends, at
//! the wall-clock moments a page would.

mod support;

use std::time::Duration;

use pogo_core::Input;
use pogo_server::lanes::Lane;
use pogo_server::live::client::{Client, Event};
use pogo_server::live::wire::{
    LiveClientMessage, LiveServerMessage, Phase, RacerState, Role, Stream,
};
use serde_json::{Value, json};
use support::live::*;
use support::*;

struct Live {
    server: TestServer,
    _dir: tempfile::TempDir,
}

async fn live_server(db: &TestDb, tweak: impl FnOnce(&mut pogo_server::Config)) -> Live {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_with_levels(db, dir.path(), &[dash_level()]);
    tweak(&mut config);
    Live {
        server: TestServer::start(config).await,
        _dir: dir,
    }
}

/// Two racers race the dash through a room at real speed; each gets the other's stream in
/// order, and a spectator who joins mid-race gets both streams whole. At the finish each run
/// is filed verified and real-time, ranked on both boards, its replay byte for byte the
/// reference's under the racer's name and GO's date; the room lists its result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_racers_race_and_their_runs_are_filed_real_time_with_a_spectator_watching() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let live = live_server(&db, |_| {}).await;
        let (http, base) = (&live.server.http, live.server.base.clone());
        let tokens = [
            register(http, &base, "ana").await,
            register(http, &base, "bob").await,
        ];
        let room = create_room(http, &base).await;
        let mut seats = Vec::new();
        for token in &tokens {
            seats.push(join(&base, &room, Some(token), None).await);
        }
        assert_eq!(seats.iter().map(|s| s.racer).collect::<Vec<_>>(), [0, 1]);
        let (listed, body) = get_json(http, &format!("{base}/api/rooms?level=dash")).await;
        assert_eq!(listed, 200);
        assert_eq!(body["rooms"][0]["id"], json!(room), "{body}");
        let go = ready_all(&mut seats).await;
        let inputs = [events(127), events(110)];
        let streams = [stream_of(&inputs[0]), stream_of(&inputs[1])];
        let mut readers = Vec::new();
        let mut senders = Vec::new();
        for (seat, stream) in seats.into_iter().zip(streams.clone()) {
            let (mut tx, mut rx) = seat.client.split();
            senders.push(tokio::spawn(async move {
                send_from(&mut tx, &stream, 0, go, 1.0, 15).await;
                tx
            }));
            readers.push(tokio::spawn(
                async move { read_until_filed(&mut rx, 2).await },
            ));
        }
        // A spectator, 0.8 s into the race.
        tokio::time::sleep(Duration::from_micros(
            (go * 1000 + 800_000 - now_us()).max(0) as u64,
        ))
        .await;
        let mut spectator = Client::connect(&base, &room).await.unwrap();
        spectator.hello(Role::Spectator, None, None).await.unwrap();
        let (_, mut watch) = spectator.split();
        let watcher = tokio::spawn(async move { read_until_filed(&mut watch, 2).await });

        let mut seen = Vec::new();
        for reader in readers {
            seen.push(reader.await.unwrap());
        }
        let (watched, result) = watcher.await.unwrap();
        for sender in senders {
            drop(sender.await.unwrap());
        }
        // Each racer got the other's whole stream, in order; the spectator got both.
        for (me, (events, _)) in seen.iter().enumerate() {
            let other = 1 - me;
            let theirs: Vec<Stream> = streams[other].iter().map(|m| m.0).collect();
            assert_eq!(
                relayed(events, other as u8),
                theirs,
                "racer {me} sees racer {other}"
            );
            assert!(
                relayed(events, me as u8).is_empty(),
                "racer {me} is not sent their own"
            );
        }
        for (racer, stream) in streams.iter().enumerate() {
            let whole: Vec<Stream> = stream.iter().map(|m| m.0).collect();
            assert_eq!(
                relayed(&watched, racer as u8),
                whole,
                "the spectator sees racer {racer}"
            );
        }
        assert!(
            watched.iter().any(|e| matches!(e, Event::Backlog { .. })),
            "the spectator joined mid-race: it caught up from a backlog"
        );
        // Filed: verified, real-time, both boards; the replay is the reference's.
        let date = pogo_server::times::rfc3339_seconds(go);
        for (racer, name) in ["ana", "bob"].iter().enumerate() {
            let view = &result.racers[racer];
            assert_eq!(
                (view.state, view.realtime),
                (RacerState::Finished, true),
                "{view:?}"
            );
            let id = view.run_id.unwrap();
            let status = run_status(http, &base, id).await;
            assert_eq!(status["status"], "verified", "{status}");
            assert_eq!(status["realtime"], true, "{}: {status}", backend.name());
            assert!(status["realtime_rank"].is_number(), "{status}");
            assert_eq!(status["finish_tick"], json!(view.finish_tick.unwrap()));
            assert_eq!(
                replay_bytes(http, &base, id).await,
                reference(&inputs[racer], name, &date),
                "racer {racer}'s replay"
            );
        }
        let (status, body) = get_json(http, &format!("{base}/api/rooms/{room}")).await;
        assert_eq!((status, &body["phase"]), (200, &json!("over")), "{body}");
        // The filer verified on the prompt lane's threads, below the relay's priority
        // (`lanes`), not on the runtime's blocking pool.
        #[cfg(target_os = "linux")]
        assert!(
            threads_named(Lane::Prompt.thread_prefix()) >= 1,
            "the prompt lane's threads"
        );
        live.server.stop().await;
        db.remove().await;
    }
}

/// A racer whose game runs at two thirds of real speed is filed verified, open only, with the
/// reason; the honest racer beside them is real-time. A guest's run is relayed but not filed.
/// (A 400 ms slack: the dash's 1.45 s at 1.5× falls 0.72 s behind.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slowed_racer_is_open_only_and_a_guest_is_not_filed() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let live = live_server(&db, |c| c.ticket_slack_ms = 400).await;
        let (http, base) = (&live.server.http, live.server.base.clone());
        let token = register(http, &base, "sly").await;
        let room = create_room(http, &base).await;
        let mut seats = vec![
            join(&base, &room, Some(&token), None).await,
            join(&base, &room, None, None).await,
        ];
        let go = ready_all(&mut seats).await;
        let mut tasks = Vec::new();
        for (seat, slow) in seats.into_iter().zip([1.5, 1.0]) {
            let (mut tx, mut rx) = seat.client.split();
            let stream = stream_of(&events(120));
            tasks.push(tokio::spawn(async move {
                send_from(&mut tx, &stream, 0, go, slow, 10).await;
                let mut last = None;
                while let Some(event) = tokio::time::timeout(Duration::from_secs(20), rx.next())
                    .await
                    .ok()
                    .flatten()
                {
                    if let Event::Control(LiveServerMessage::Room { room }) = &event {
                        last = Some(room.clone());
                        if room.phase == Phase::Over && room.racers[0].run_id.is_some() {
                            break;
                        }
                    }
                }
                last.unwrap()
            }));
        }
        let mut rooms = Vec::new();
        for task in tasks {
            rooms.push(task.await.unwrap());
        }
        let room = rooms.pop().unwrap();
        let sly = &room.racers[0];
        assert_eq!(
            (sly.state, sly.realtime),
            (RacerState::Finished, false),
            "{sly:?}"
        );
        let note = sly.realtime_note.clone().unwrap();
        assert!(
            note.contains("after its game time since GO (at most 0.4 s allowed)"),
            "{note}"
        );
        let status = run_status(http, &base, sly.run_id.unwrap()).await;
        assert_eq!(
            (&status["status"], &status["realtime"]),
            (&json!("verified"), &json!(false)),
            "{status}"
        );
        assert_eq!(status["realtime_note"], json!(note));
        let guest = &room.racers[1];
        assert_eq!(
            (guest.state, guest.registered, guest.realtime),
            (RacerState::Finished, false, true)
        );
        assert_eq!(guest.run_id, None, "a guest's run is not filed");
        assert_eq!(guest.name, "guest 1");
        live.server.stop().await;
        db.remove().await;
    }
}

/// A racer cut off mid-race comes back with their key: the server says the last message it
/// holds, the page sends from the next, and the run is whole and real-time (the cut was
/// shorter than the slack). A racer cut for good is marked so, their run so far kept and not
/// ranked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_racer_resumes_from_the_ack_and_one_cut_for_good_is_kept_unranked() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let live = live_server(&db, |c| c.live_resume_grace_ms = Some(1500)).await;
        let (http, base) = (&live.server.http, live.server.base.clone());
        let tokens = [
            register(http, &base, "kit").await,
            register(http, &base, "lou").await,
        ];
        let room = create_room(http, &base).await;
        let mut seats = vec![
            join(&base, &room, Some(&tokens[0]), None).await,
            join(&base, &room, Some(&tokens[1]), None).await,
        ];
        let go = ready_all(&mut seats).await;
        let lou = seats.pop().unwrap();
        let kit = seats.pop().unwrap();
        let stream = stream_of(&events(127));
        let half = stream.len() / 2;
        let key = kit.key.clone();
        // Both race the first half; then both connections drop, with no close frame.
        let (mut kit_tx, kit_rx) = kit.client.split();
        let (mut lou_tx, lou_rx) = lou.client.split();
        tokio::join!(
            send_from(&mut kit_tx, &stream[..half], 0, go, 1.0, 5),
            send_from(&mut lou_tx, &stream[..half], 0, go, 1.0, 5)
        );
        // The server acknowledges as it takes: give the last acks a moment on loopback.
        tokio::time::sleep(Duration::from_millis(50)).await;
        drop((kit_tx, kit_rx, lou_tx, lou_rx));
        // Kit is back 300 ms later: the server holds everything sent (nothing lost), and Kit
        // sends on from the next message, late by the cut, within the slack.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let kit = join(&base, &room, Some(&tokens[0]), Some(&key)).await;
        assert_eq!(kit.racer, 0);
        let acked = kit.acked.expect("the server holds Kit's stream") as usize;
        assert_eq!(
            acked,
            half - 1,
            "every message sent before the cut was taken"
        );
        let (mut tx, mut rx) = kit.client.split();
        let reader = tokio::spawn(async move { read_until_filed(&mut rx, 2).await });
        send_from(&mut tx, &stream, acked + 1, go, 1.0, 5).await;
        let (_, room_view) = reader.await.unwrap();
        let kit_view = &room_view.racers[0];
        assert_eq!(
            (kit_view.state, kit_view.realtime),
            (RacerState::Finished, true),
            "{kit_view:?}"
        );
        let status = run_status(http, &base, kit_view.run_id.unwrap()).await;
        assert_eq!(
            (&status["realtime"], &status["status"]),
            (&json!(true), &json!("verified"))
        );
        let date = pogo_server::times::rfc3339_seconds(go);
        assert_eq!(
            replay_bytes(http, &base, kit_view.run_id.unwrap()).await,
            reference(&events(127), "kit", &date),
            "the resumed run is whole"
        );
        // Lou never came back: cut for good after the grace, the run so far kept, unranked.
        let lou_view = &room_view.racers[1];
        assert_eq!(lou_view.state, RacerState::Cut, "{lou_view:?}");
        let status = run_status(http, &base, lou_view.run_id.unwrap()).await;
        assert_eq!(status["status"], "verified", "{status}");
        assert_eq!(
            (&status["finish_tick"], &status["rank"]),
            (&Value::Null, &Value::Null),
            "{status}"
        );
        assert_eq!(status["realtime"], false);
        live.server.stop().await;
        db.remove().await;
    }
}

/// An ack rides with the next relay to its racer (one write for both), or goes alone with the
/// journal's next commit (`room::Answer`): a racer alone in a room, who is sent no relay, is
/// still told everything they sent is held, in order. The attack: a racer with no rivals
/// whose acks wait for a relay that never comes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_racer_alone_is_acknowledged_without_a_relay_to_carry_the_ack() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let live = live_server(&db, |_| {}).await;
        let (http, base) = (&live.server.http, live.server.base.clone());
        let token = register(http, &base, "solo").await;
        let room = create_room(http, &base).await;
        let mut seats = vec![join(&base, &room, Some(&token), None).await];
        let go = ready_all(&mut seats).await;
        let solo = seats.pop().unwrap();
        let stream = stream_of(&events(127));
        let sent = stream.len() / 3;
        let (mut tx, mut rx) = solo.client.split();
        let reader = tokio::spawn(async move {
            let mut acks = Vec::new();
            // Until the last message sent is acknowledged, or 5 s of silence.
            while let Ok(Some(event)) =
                tokio::time::timeout(Duration::from_secs(5), rx.next()).await
            {
                match event {
                    Event::Ack(seq) => {
                        acks.push(seq);
                        if seq as usize == sent - 1 {
                            break;
                        }
                    }
                    Event::Relay { .. } => panic!("a relay in a room of one"),
                    _ => {}
                }
            }
            acks
        });
        send_from(&mut tx, &stream[..sent], 0, go, 1.0, 5).await;
        let acks = reader.await.unwrap();
        assert_eq!(
            acks.last().copied(),
            Some(sent as u32 - 1),
            "every message sent is acknowledged: {acks:?}"
        );
        assert!(
            acks.windows(2).all(|w| w[0] < w[1]),
            "acks are cumulative, in order: {acks:?}"
        );
        assert!(acks.len() > 1, "acks come as the race goes: {acks:?}");
        live.server.stop().await;
        db.remove().await;
    }
}

/// An ack held for a racer who has gone quiet goes with the journal's next commit, whoever
/// that commit is for: the writer sends what the last commit left held before each commit,
/// not only after a quiet spell of its own. The attack: another room's racer whose input
/// changes every 20 ms never leave the writer idle for a whole commit interval, so that an
/// ack waiting for a pause would wait for the end of their race.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_ack_goes_with_the_next_commit_while_another_room_streams() {
    let backend = backends().await.remove(0);
    let db = TestDb::new(&backend).await;
    let live = live_server(&db, |_| {}).await;
    let (http, base) = (&live.server.http, live.server.base.clone());
    let mut racers = Vec::new();
    for name in ["busy", "brief"] {
        let token = register(http, &base, name).await;
        let room = create_room(http, &base).await;
        let mut seats = vec![join(&base, &room, Some(&token), None).await];
        let go = ready_all(&mut seats).await;
        racers.push((seats.pop().unwrap(), go));
    }
    let (brief, brief_go) = racers.pop().unwrap();
    let (busy, busy_go) = racers.pop().unwrap();
    // 2.5 s of play, the stick moved every 20 ms: a message every 20 ms or less.
    let changes: Vec<(u64, Input)> = (0..125u64)
        .map(|i| {
            let input = Input {
                steer_x: if i % 2 == 0 { 60 } else { -60 },
                ..Input::default()
            };
            (i * 20 * MS, input)
        })
        .collect();
    let busy_stream: Vec<_> = stream_of(&changes)
        .into_iter()
        .filter(|(_, game_us)| *game_us < 2_500_000)
        .collect();
    // The first 0.3 s of a race, then nothing more.
    let brief_stream: Vec<_> = stream_of(&events(127))
        .into_iter()
        .filter(|(_, game_us)| *game_us < 300_000)
        .collect();
    let last = brief_stream.len() as u32 - 1;
    let (mut busy_tx, _busy_rx) = busy.client.split();
    let (mut brief_tx, mut brief_rx) = brief.client.split();
    let reader = tokio::spawn(async move {
        while let Ok(Some(event)) =
            tokio::time::timeout(Duration::from_secs(5), brief_rx.next()).await
        {
            if event == Event::Ack(last) {
                return Some(std::time::Instant::now());
            }
        }
        None
    });
    let busy_done = async {
        send_from(&mut busy_tx, &busy_stream, 0, busy_go, 1.0, 5).await;
        std::time::Instant::now()
    };
    let (busy_done, ()) = tokio::join!(
        busy_done,
        send_from(&mut brief_tx, &brief_stream, 0, brief_go, 1.0, 5)
    );
    let acked = reader
        .await
        .unwrap()
        .expect("the brief racer's last message is acknowledged");
    assert!(
        acked < busy_done,
        "acknowledged {:?} after the busy racer's last message, not with the next commit",
        acked - busy_done
    );
    live.server.stop().await;
    db.remove().await;
}

/// A page going away says `away` first (a reload or a close: it cannot tell which). One whose
/// socket then drops and who is not back within the away grace (5 s) has **left**, as with
/// `leave`, long before the resume grace (30 s here) would cut them; one who comes back with
/// their key in time (a reload) takes the seat back and finishes, filed whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_going_away_has_left_unless_it_comes_back_within_seconds() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let live = live_server(&db, |c| c.live_resume_grace_ms = Some(30_000)).await;
        let (http, base) = (&live.server.http, live.server.base.clone());
        let tokens = [
            register(http, &base, "gus").await,
            register(http, &base, "rio").await,
        ];
        let room = create_room(http, &base).await;
        let mut seats = vec![
            join(&base, &room, Some(&tokens[0]), None).await,
            join(&base, &room, Some(&tokens[1]), None).await,
        ];
        let go = ready_all(&mut seats).await;
        let rio = seats.pop().unwrap();
        let gus = seats.pop().unwrap();
        let stream = stream_of(&events(127));
        let half = stream.len() / 2;
        let rio_key = rio.key.clone();
        let (mut gus_tx, gus_rx) = gus.client.split();
        let (mut rio_tx, rio_rx) = rio.client.split();
        tokio::join!(
            send_from(&mut gus_tx, &stream[..half], 0, go, 1.0, 5),
            send_from(&mut rio_tx, &stream[..half], 0, go, 1.0, 5)
        );
        gus_tx.send(&LiveClientMessage::Away {}).await.unwrap();
        rio_tx.send(&LiveClientMessage::Away {}).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        let gone_at = std::time::Instant::now();
        drop((gus_tx, gus_rx, rio_tx, rio_rx));
        // Rio reloads: back 300 ms later with the key, on from the next message.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let rio = join(&base, &room, None, Some(&rio_key)).await;
        assert_eq!(rio.racer, 1, "the seat is Rio's again");
        let acked = rio.acked.expect("the server holds Rio's stream") as usize;
        let (mut tx, mut rx) = rio.client.split();
        let reader = tokio::spawn(async move { read_until_filed(&mut rx, 2).await });
        send_from(&mut tx, &stream, acked + 1, go, 1.0, 5).await;
        let (_, view) = reader.await.unwrap();
        let waited = gone_at.elapsed();
        let (gus_view, rio_view) = (&view.racers[0], &view.racers[1]);
        assert_eq!(gus_view.state, RacerState::Left, "{gus_view:?}");
        assert!(
            waited < Duration::from_secs(15),
            "Gus counted as left after the away grace, not the resume grace: {waited:?}"
        );
        assert_eq!(rio_view.state, RacerState::Finished, "{rio_view:?}");
        let date = pogo_server::times::rfc3339_seconds(go);
        assert_eq!(
            replay_bytes(http, &base, rio_view.run_id.unwrap()).await,
            reference(&events(127), "rio", &date),
            "the run raced across the reload is whole"
        );
        // Gus's run so far is kept, unranked.
        let status = run_status(http, &base, gus_view.run_id.unwrap()).await;
        assert_eq!(
            (&status["status"], &status["rank"]),
            (&json!("verified"), &Value::Null),
            "{status}"
        );
        live.server.stop().await;
        db.remove().await;
    }
}

/// The test-only injected latency delays each message by its own wait from when it arrived,
/// not behind the wait of the one before: a burst of a racer's messages reaches the room
/// (and is stamped) within a moment of its injected delay, all together. (The reader once
/// slept each message's delay before reading the next, so a page sending faster than one
/// message per delay fell further behind all race: 25 messages at 100 ms took 2.5 s.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn injected_latency_delays_each_message_not_the_queue() {
    const LATENCY_MS: i64 = 100;
    let db = TestDb::new(&backends().await[0]).await;
    let live = live_server(&db, |c| c.live_test_latency_ms = Some(LATENCY_MS as u64)).await;
    let (http, base) = (&live.server.http, live.server.base.clone());
    let room = create_room(http, &base).await;
    let mut seat = join(&base, &room, None, None).await;
    let mut spectator = Client::connect(&base, &room).await.unwrap();
    spectator.hello(Role::Spectator, None, None).await.unwrap();
    seat.client
        .send(&LiveClientMessage::Ready { ready: true })
        .await
        .unwrap();
    let go = until_go(&mut seat.client).await;
    let stream = stream_of(&events(127));
    let last_us = stream.last().unwrap().1;
    // The whole run at once, once its last message is due: a burst, every message on its way
    // within a few ms.
    tokio::time::sleep(Duration::from_micros(
        (go * 1000 + last_us + 100_000 - now_us()).max(0) as u64,
    ))
    .await;
    let sent_us = now_us() - go * 1000;
    for (message, _) in &stream {
        seat.client.stream(message).await.unwrap();
    }
    let mut stamps = Vec::new();
    while stamps.len() < stream.len() {
        if let Event::Relay { received_us, .. } = next(&mut spectator).await {
            stamps.push(received_us as i64);
        }
    }
    let first = *stamps.iter().min().unwrap();
    let spread_ms = (stamps.iter().max().unwrap() - first) / 1000;
    assert!(
        first - sent_us >= (LATENCY_MS - 5) * 1000,
        "each message waits its delay: the first was stamped {} ms after it was sent",
        (first - sent_us) / 1000
    );
    assert!(
        spread_ms < 1000,
        "{} messages sent at once were stamped over {spread_ms} ms (one delay each would be {} ms)",
        stream.len(),
        LATENCY_MS * stream.len() as i64
    );
}

/// Reads until the room closes the socket: the code and the reason.
/// A connection that says `hello` as `role` and is refused: the close.
async fn refused_hello(
    base: &str,
    room: &str,
    role: Role,
    token: Option<&str>,
    key: Option<&str>,
) -> (u16, String) {
    let mut client = Client::connect(base, room).await.unwrap();
    client.hello(role, token, key).await.unwrap();
    closed(&mut client).await
}

/// Every bad message a cheater or a broken page would send, each on its own connection,
/// beside an honest racer: each closes its socket with a code and a reason, changes nothing
/// (a refused racer resumes with what the server held before), and the honest racer's run is
/// filed real-time all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_messages_close_the_socket_with_a_reason_and_change_nothing() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let live = live_server(&db, |c| c.live_resume_grace_ms = Some(1000)).await;
        let (http, base) = (&live.server.http, live.server.base.clone());
        let room = create_room(http, &base).await;
        let other_room = create_room(http, &base).await;
        let expect = |got: (u16, String), code: u16, starts: &str| {
            assert_eq!(got.0, code, "{}: {got:?}", backend.name());
            assert!(
                got.1.starts_with(starts),
                "{got:?} does not start with {starts:?}"
            );
        };
        // Before any race: no hello first, bad JSON, a bad token, another room's racer key,
        // hello twice, a stream message in the lobby, an oversized frame.
        let mut c = Client::connect(&base, &room).await.unwrap();
        c.send(&LiveClientMessage::Ready { ready: true })
            .await
            .unwrap();
        expect(closed(&mut c).await, 4000, "the first message is a hello");
        let mut c = Client::connect(&base, &room).await.unwrap();
        c.raw_text("{\"type\":").await.unwrap();
        expect(closed(&mut c).await, 4000, "malformed message");
        expect(
            refused_hello(&base, &room, Role::Racer, Some("pogo_nope"), None).await,
            4008,
            "token refused",
        );
        let elsewhere = join(&base, &other_room, None, None).await;
        expect(
            refused_hello(&base, &room, Role::Racer, None, Some(&elsewhere.key)).await,
            4009,
            "no racer of this room",
        );
        let mut twice = join(&base, &room, None, None).await;
        twice.client.hello(Role::Racer, None, None).await.unwrap();
        expect(
            closed(&mut twice.client).await,
            4000,
            "hello was said already",
        );
        let mut early = join(&base, &room, None, None).await;
        early
            .client
            .stream(&Stream::Ran { seq: 0, tick: 0 })
            .await
            .unwrap();
        expect(
            closed(&mut early.client).await,
            4004,
            "nothing is streamed before the countdown",
        );
        let mut big = join(&base, &room, None, None).await;
        big.client.raw(vec![1; 4096]).await.unwrap();
        // Refused by the WebSocket layer: a close frame with no code (docs/live.md, "Refusals").
        let (code, _) = closed(&mut big.client).await;
        assert_eq!(code, 1005, "an oversized frame is refused");
        let (status, body) = get_json(http, &format!("{base}/api/rooms/{room}")).await;
        assert_eq!(
            (status, body["racers"].as_array().unwrap().len()),
            (200, 0),
            "the lobby is empty again: {body}"
        );

        // The race: an honest racer and four who misbehave after GO.
        let names = ["ana", "mal", "gap", "fut", "flo"];
        let mut seats = Vec::new();
        for name in names {
            let token = register(http, &base, name).await;
            seats.push(join(&base, &room, Some(&token), None).await);
        }
        let go = ready_all(&mut seats).await;
        let stream = stream_of(&events(127));
        let mut seats = seats.into_iter();
        let ana = seats.next().unwrap();
        let (mut tx, mut rx) = ana.client.split();
        let honest = {
            let stream = stream.clone();
            tokio::spawn(async move {
                send_from(&mut tx, &stream, 0, go, 1.0, 10).await;
                tx
            })
        };
        let watcher = tokio::spawn(async move { read_until_filed(&mut rx, 5).await });
        tokio::time::sleep(Duration::from_micros(
            (go * 1000 - now_us()).max(0) as u64 + 50_000,
        ))
        .await;
        // A message of no known type.
        let mut mal = seats.next().unwrap();
        mal.client.raw(vec![0x42, 0, 0]).await.unwrap();
        expect(
            closed(&mut mal.client).await,
            4000,
            "malformed message: unknown message type 0x42",
        );
        // A skipped sequence number; resuming, the server holds what it held before.
        let mut gap = seats.next().unwrap();
        gap.client.stream(&stream[0].0).await.unwrap();
        // Held once acknowledged: the journal has it (acks come when it is written).
        acked_to(&mut gap.client, 0).await;
        gap.client.stream(&stream[2].0).await.unwrap();
        expect(
            closed(&mut gap.client).await,
            4001,
            "sequence gap: expected message 1, found 2",
        );
        let gap_key = gap.key.clone();
        let back = join(&base, &room, None, Some(&gap_key)).await;
        assert_eq!(back.acked, Some(0), "the refused message changed nothing");
        let (mut back_tx, _back_rx) = back.client.split();
        back_tx.send(&LiveClientMessage::Leave {}).await.unwrap();
        // A tick 10 s ahead of the clock.
        let mut fut = seats.next().unwrap();
        fut.client
            .stream(&Stream::Ran { seq: 0, tick: 600 })
            .await
            .unwrap();
        expect(closed(&mut fut.client).await, 4001, "from the future");
        // A flood of pings.
        let mut flo = seats.next().unwrap();
        for id in 0..1000 {
            if flo
                .client
                .send(&LiveClientMessage::Ping { id })
                .await
                .is_err()
            {
                break;
            }
        }
        expect(closed(&mut flo.client).await, 4002, "too many messages");
        // A spectator streaming.
        let mut spectator = Client::connect(&base, &room).await.unwrap();
        spectator.hello(Role::Spectator, None, None).await.unwrap();
        spectator.stream(&stream[0].0).await.unwrap();
        expect(
            closed(&mut spectator).await,
            4004,
            "only a racer sends that",
        );

        drop(honest.await.unwrap());
        let (_, result) = watcher.await.unwrap();
        let states: Vec<RacerState> = result.racers.iter().map(|r| r.state).collect();
        assert_eq!(
            states,
            [
                RacerState::Finished,
                RacerState::Cut,
                RacerState::Left,
                RacerState::Cut,
                RacerState::Cut
            ],
            "{result:?}"
        );
        let ana = &result.racers[0];
        let status = run_status(http, &base, ana.run_id.unwrap()).await;
        assert_eq!(
            (&status["status"], &status["realtime"]),
            (&json!("verified"), &json!(true)),
            "{status}"
        );
        let date = pogo_server::times::rfc3339_seconds(go);
        assert_eq!(
            replay_bytes(http, &base, ana.run_id.unwrap()).await,
            reference(&events(127), "ana", &date)
        );
        live.server.stop().await;
        db.remove().await;
    }
}

/// Two server processes on one PostgreSQL: a room made at one is joined at the other (the
/// join is proxied to the room's home) and raced; both runs are filed; either process
/// answers the room and lists it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_on_one_postgresql_share_their_rooms() {
    let Some(backend) = postgres_backend().await else {
        return;
    };
    let db = TestDb::new(&backend).await;
    let home = live_server(&db, |_| {}).await;
    let away = live_server(&db, |_| {}).await;
    let (http, home_base, away_base) = (
        &home.server.http,
        home.server.base.clone(),
        away.server.base.clone(),
    );
    let tokens = [
        register(http, &home_base, "hal").await,
        register(http, &away_base, "ivy").await,
    ];
    let room = create_room(http, &home_base).await;
    let (status, body) = get_json(http, &format!("{away_base}/api/rooms/{room}")).await;
    assert_eq!(
        (status, &body["id"]),
        (200, &json!(room)),
        "the other process reads the room: {body}"
    );
    let mut seats = vec![
        join(&home_base, &room, Some(&tokens[0]), None).await,
        join(&away_base, &room, Some(&tokens[1]), None).await,
    ];
    assert_eq!(seats[1].racer, 1, "the proxied racer sits in the same room");
    let go = ready_all(&mut seats).await;
    let mut tasks = Vec::new();
    for (seat, steer) in seats.into_iter().zip([127, 115]) {
        let (mut tx, mut rx) = seat.client.split();
        let stream = stream_of(&events(steer));
        tasks.push(tokio::spawn(async move {
            send_from(&mut tx, &stream, 0, go, 1.0, 10).await;
            let seen = read_until_filed(&mut rx, 2).await;
            drop(tx);
            seen
        }));
    }
    let mut results = Vec::new();
    for task in tasks {
        results.push(task.await.unwrap());
    }
    let (events_away, room_view) = results.pop().unwrap();
    assert_eq!(
        relayed(&events_away, 0),
        stream_of(&events(127))
            .into_iter()
            .map(|m| m.0)
            .collect::<Vec<_>>(),
        "the proxied racer saw the home racer's whole stream"
    );
    for (racer, name) in ["hal", "ivy"].iter().enumerate() {
        let view = &room_view.racers[racer];
        assert_eq!(
            (view.state, view.realtime),
            (RacerState::Finished, true),
            "{view:?}"
        );
        let status = run_status(http, &away_base, view.run_id.unwrap()).await;
        assert_eq!(status["player"], json!(name));
        assert_eq!(status["realtime"], true, "{status}");
    }
    home.server.stop().await;
    away.server.stop().await;
    db.remove().await;
}

/// A new room is in its process's map before its row is written, so no sweep finds the row
/// without finding the room. The first sweep of `take_up_rooms` takes up this process's own
/// home's rooms (those of before a restart): one that read a brand-new room's row before the
/// room was here took it up from its empty journal, a second room under the same id, and
/// members joined one while a racer coming back found the other (`788b18f`). Here the test
/// holds SQLite's write lock, so the new room's row waits: the room must be here meanwhile,
/// and taking its row up afterwards gives back the same room, not a copy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_room_is_here_before_its_row_is_written_so_a_sweep_never_takes_it_up() {
    use sqlx::Connection;
    let db = TestDb::new(&Backend::Sqlite).await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_with_levels(&db, dir.path(), &[dash_level()]);
    let server = pogo_server::Server::open(&config).await.unwrap();
    let live = server.state().0.live.clone();
    let _ = live.home.set("http://127.0.0.1:9".to_string());
    let mut lock = sqlx::SqliteConnection::connect(&db.url).await.unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut lock)
        .await
        .unwrap();
    let creating = tokio::spawn({
        let live = live.clone();
        async move { live.create_room("dash").await }
    });
    let until = std::time::Instant::now() + Duration::from_secs(5);
    while live.rooms.is_empty() {
        assert!(
            std::time::Instant::now() < until,
            "the new room is not in the process's map while its row waits for the database"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        !creating.is_finished(),
        "the room's row was written under the test's write lock"
    );
    sqlx::query("ROLLBACK").execute(&mut lock).await.unwrap();
    let view = creating.await.unwrap().unwrap();
    let row = live
        .store
        .room_rows()
        .room(&view.id)
        .await
        .unwrap()
        .expect("the room's row, once the lock is gone");
    let here = live.rooms.get(&view.id).unwrap();
    let taken = live
        .take_up(&row)
        .await
        .unwrap()
        .expect("the room, found here");
    assert!(
        taken.commands.same_channel(&here.commands),
        "taking the new room's row up made a second room"
    );
    assert_eq!(live.rooms.len(), 1);
    let _ = lock.close().await;
}
