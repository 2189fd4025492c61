//! Telling the members: the room's view (to every member, and to the view handle the API and
//! the database read), a message to all, and a member's connection closed with a reason.

use super::{Racer, Room};
use crate::live::Close;
use crate::live::command::{ConnId, Outbox, Outgoing};
use crate::live::racer::RacerRun;
use crate::live::wire::{self, LiveServerMessage, RacerView, RoomView};

impl Room {
    pub(super) fn view(&self) -> RoomView {
        RoomView {
            id: self.id.clone(),
            level: self.level.clone(),
            tick_rate: self.ctx.catalog.tick_rate(),
            phase: self.phase,
            go_ms: self.go_ms,
            ends_ms: self.ends_ms,
            slack_ms: self.ctx.slack_ms,
            racers: self.racers.iter().map(Racer::view).collect(),
            spectators: self.members.values().filter(|m| m.racer.is_none()).count(),
            note: self.note.clone(),
        }
    }

    /// The room changed: every member is told, and the view handle (the API, the database)
    /// gets the new view.
    pub(super) fn publish(&mut self) {
        let view = self.view();
        let message = LiveServerMessage::Room { room: view.clone() };
        self.broadcast(&message);
        self.view.send_replace(view);
    }

    pub(super) fn broadcast(&mut self, message: &LiveServerMessage) {
        let Ok(text) = serde_json::to_string(message) else {
            return;
        };
        let mut slow = Vec::new();
        for (&conn, member) in self.members.iter() {
            if !member.out.push(Outgoing::Text(text.clone())) {
                slow.push(conn);
            }
        }
        for conn in slow {
            self.close(conn, Close::TooSlow);
        }
    }

    /// Closes `conn` with `why`: the member leaves the room (a racer's seat stays theirs to
    /// resume, as after a cut).
    pub(super) fn close(&mut self, conn: ConnId, why: Close) {
        if let Some(member) = self.members.get(&conn) {
            tracing::info!(room = %self.id, racer = ?member.racer, reason = %why, "closing a connection");
            member.out.push(Outgoing::Close(why));
        }
        self.on_gone(conn);
    }

    pub(super) fn close_all(&mut self, why: Close) {
        for member in self.members.values() {
            member.out.push(Outgoing::Close(why.clone()));
        }
        self.members.clear();
    }
}

impl Racer {
    fn view(&self) -> RacerView {
        let run = self.run.as_ref();
        RacerView {
            racer: self.number,
            name: self.name.clone(),
            registered: self.player.is_some(),
            ready: self.ready,
            connected: self.conn.is_some(),
            state: self.state,
            tick: run.map_or(0, RacerRun::ticks),
            splits: run.map_or_else(Vec::new, |r| {
                r.splits()
                    .iter()
                    .map(|&(checkpoint, tick)| wire::SplitView { checkpoint, tick })
                    .collect()
            }),
            finish_tick: run.and_then(RacerRun::finish_tick),
            realtime: run.is_some_and(|r| r.realtime_note().is_none()),
            realtime_note: run.and_then(|r| r.realtime_note().map(str::to_string)),
            run_id: self.run_id,
        }
    }
}

pub(super) fn send_text(out: &Outbox, message: &LiveServerMessage) {
    if let Ok(text) = serde_json::to_string(message) {
        out.push(Outgoing::Text(text));
    }
}
