//! Live races' test helpers: the dash level, a racer's inputs and the stream a page sends
//! for them, the oracle replay, and a racer's side of the protocol (join, ready, send at the
//! wall-clock moments a page would, read until filed).

use std::sync::Arc;
use std::time::Duration;

use pogo_core::world::{World, WorldDesc};
use pogo_core::{Buttons, Events, Input, Simulation, Tuning};
use pogo_replay::{Header, Recorder};
use pogo_server::live::client::{Client, Event, Receiver, page_stream};
use pogo_server::live::wire::{
    LiveClientMessage, LiveServerMessage, Phase, Role, RoomView, Stream,
};
use serde_json::Value;

use super::{get_json, track};

/// A dash east: a checkpoint 5 m out, the finish at 12 m (about 2 s).
pub fn dash_level() -> WorldDesc {
    track("dash", 60, &[5], 12)
}

pub fn world() -> Arc<World> {
    Arc::new(World::new(dash_level(), &Tuning::default()).unwrap())
}

pub const MS: u64 = 1_000_000;

/// A racer's inputs: east at `steer`, a dive pressed for a moment.
pub fn events(steer: i8) -> Vec<(u64, Input)> {
    let east = Input {
        steer_x: steer,
        ..Input::default()
    };
    vec![
        (0, east),
        (
            500 * MS + 7,
            Input {
                buttons: Buttons::DIVE,
                ..east
            },
        ),
        (650 * MS, east),
    ]
}

/// The oracle: the replay of `events` recorded tick by tick without a driver (tick k takes
/// the latest event with `ns · 60 ≤ k · 10⁹`), under `name` and `date`, to the finish.
pub fn reference(events: &[(u64, Input)], name: &str, date: &str) -> Vec<u8> {
    let mut sim = Simulation::new(world(), Tuning::default(), 1).unwrap();
    let header = Header::for_simulation(&sim, Some(name.into()), Some(date.into()));
    let mut recorder = Recorder::new(Vec::new(), header).unwrap();
    for k in 0..3600u64 {
        let input = events
            .iter()
            .rev()
            .find(|(ns, _)| u128::from(*ns) * 60 <= u128::from(k) * 1_000_000_000)
            .map_or(Input::default(), |e| e.1);
        sim.step(&[input]);
        recorder.record(&[input], || sim.state_hash()).unwrap();
        if sim.state().pogos[0].events.contains(Events::FINISH) {
            break;
        }
    }
    recorder.finish_simulation(&sim).unwrap()
}

/// The messages a page sends for `events`, with their game times (µs since GO).
pub fn stream_of(events: &[(u64, Input)]) -> Vec<(Stream, i64)> {
    page_stream(world(), &Tuning::default(), events, 3600)
}

pub async fn create_room(http: &reqwest::Client, base: &str) -> String {
    let response = http
        .post(format!("{base}/api/levels/dash/rooms"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["socket_url"],
        format!("/api/rooms/{}/socket", body["id"].as_str().unwrap())
    );
    body["id"].as_str().unwrap().to_string()
}

/// A racer in a room: their connection, seat and key.
pub struct Seat {
    pub client: Client,
    pub racer: u8,
    pub key: String,
    pub acked: Option<u32>,
}

/// Joins `room` as a racer (with `token`, or as a guest, or resuming with `key`).
pub async fn join(base: &str, room: &str, token: Option<&str>, key: Option<&str>) -> Seat {
    let mut client = Client::connect(base, room).await.unwrap();
    client.hello(Role::Racer, token, key).await.unwrap();
    loop {
        match next(&mut client).await {
            Event::Control(LiveServerMessage::Welcome {
                racer, key, acked, ..
            }) => {
                return Seat {
                    client,
                    racer: racer.unwrap(),
                    key: key.unwrap(),
                    acked,
                };
            }
            Event::Closed { code, reason } => panic!("closed {code}: {reason}"),
            _ => {}
        }
    }
}

pub async fn next(client: &mut Client) -> Event {
    tokio::time::timeout(Duration::from_secs(20), client.next())
        .await
        .expect("the room answers within 20 s")
        .expect("the socket is open")
}

/// Every seat says ready; the room's GO (Unix ms), once every seat has seen it.
pub async fn ready_all(seats: &mut [Seat]) -> i64 {
    for seat in seats.iter_mut() {
        seat.client
            .send(&LiveClientMessage::Ready { ready: true })
            .await
            .unwrap();
    }
    let mut go = 0;
    for seat in seats.iter_mut() {
        go = until_go(&mut seat.client).await;
    }
    go
}

/// Reads until the room is counting down; GO (Unix ms).
pub async fn until_go(client: &mut Client) -> i64 {
    loop {
        if let Event::Control(LiveServerMessage::Room { room }) = next(client).await {
            if let Some(go) = room.go_ms {
                return go;
            }
        }
    }
}

pub fn now_us() -> i64 {
    pogo_server::live::now_us()
}

/// Sends `messages` (from index `from`) each at GO plus its game time times `slow` plus
/// `delay_ms`, as a page playing them would.
pub async fn send_from(
    tx: &mut pogo_server::live::client::Sender,
    messages: &[(Stream, i64)],
    from: usize,
    go_ms: i64,
    slow: f64,
    delay_ms: i64,
) {
    for (message, game_us) in &messages[from..] {
        let due_us = go_ms * 1000 + (*game_us as f64 * slow) as i64 + delay_ms * 1000;
        let wait = due_us - now_us();
        if wait > 0 {
            tokio::time::sleep(Duration::from_micros(wait as u64)).await;
        }
        tx.stream(message).await.unwrap();
    }
}

/// Everything a member reads until the room says every racer's run is filed (or the
/// socket closes); the last room view.
pub async fn read_until_filed(rx: &mut Receiver, racers: usize) -> (Vec<Event>, RoomView) {
    let mut events = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(30), rx.next())
            .await
            .expect("the race ends within 30 s")
            .expect("the socket stays open");
        if let Event::Control(LiveServerMessage::Room { room }) = &event {
            let filed = room.racers.iter().filter(|r| r.run_id.is_some()).count();
            if filed == racers && room.phase == Phase::Over {
                let room = room.clone();
                events.push(event);
                return (events, room);
            }
        }
        events.push(event);
    }
}

/// The relayed messages of racer `racer` among `events`: backlog first, then live.
pub fn relayed(events: &[Event], racer: u8) -> Vec<Stream> {
    let mut out = Vec::new();
    for event in events {
        match event {
            Event::Backlog { racer: r, messages } if *r == racer => {
                out.extend(messages.iter().copied())
            }
            Event::Relay {
                racer: r, message, ..
            } if *r == racer => out.push(*message),
            _ => {}
        }
    }
    out
}

pub async fn run_status(http: &reqwest::Client, base: &str, id: i64) -> Value {
    get_json(http, &format!("{base}/api/runs/{id}")).await.1
}

pub async fn replay_bytes(http: &reqwest::Client, base: &str, id: i64) -> Vec<u8> {
    let response = http
        .get(format!("{base}/api/runs/{id}/replay"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.bytes().await.unwrap().to_vec()
}

/// Reads until the server acknowledges `seq` (or a later message).
pub async fn acked_to(client: &mut Client, seq: u32) {
    loop {
        match tokio::time::timeout(Duration::from_secs(20), client.next()).await {
            Ok(Some(Event::Ack(n))) if n >= seq => return,
            Ok(Some(_)) => {}
            Ok(None) => panic!("closed before the ack of {seq}"),
            Err(_) => panic!("no ack of {seq} within 20 s"),
        }
    }
}

pub async fn closed(client: &mut Client) -> (u16, String) {
    loop {
        match tokio::time::timeout(Duration::from_secs(20), client.next()).await {
            Ok(Some(Event::Closed { code, reason })) => return (code, reason),
            Ok(Some(_)) => {}
            Ok(None) => return (1006, "ended without a close frame".into()),
            Err(_) => panic!("no close within 20 s"),
        }
    }
}
