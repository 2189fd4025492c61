//! Joining and leaving: a member's seat (a new one in the lobby, or theirs again by key or by
//! player), the welcome and the stream so far, and a connection gone (a racer's seat freed in
//! the lobby, kept for a resume once the race is on).

use axum::body::Bytes;
use tokio::time::Instant;

use super::publish::send_text;
use super::{Member, Racer, Room};
use crate::live::command::{ConnId, Joining, Outgoing};
use crate::live::wire::{LiveServerMessage, Phase, RacerState, Role};
use crate::live::{Close, limits};
use crate::times::now_ms;

impl Room {
    pub(super) fn join(&mut self, conn: ConnId, joining: Joining) -> Result<(), Close> {
        let member = match joining.role {
            Role::Spectator => {
                let watching = self.members.values().filter(|m| m.racer.is_none()).count();
                if watching >= limits::ROOM_SPECTATORS_MAX {
                    return Err(Close::RoomFull);
                }
                Member {
                    role: Role::Spectator,
                    racer: None,
                    out: joining.out,
                }
            }
            Role::Racer => {
                let number = self.seat(&joining)?;
                let racer = &mut self.racers[usize::from(number)];
                if let Some(old) = racer.conn.replace(conn) {
                    if let Some(old) = self.members.remove(&old) {
                        old.out.push(Outgoing::Close(Close::Replaced));
                    }
                }
                racer.cut_at = None;
                racer.away = false;
                Member {
                    role: Role::Racer,
                    racer: Some(number),
                    out: joining.out,
                }
            }
        };
        self.empty_since = None;
        let welcome = LiveServerMessage::Welcome {
            racer: member.racer,
            key: member
                .racer
                .map(|n| self.racers[usize::from(n)].key.clone()),
            acked: member
                .racer
                .and_then(|n| self.racers[usize::from(n)].durable),
            server_ms: now_ms(),
            room: self.view(),
        };
        send_text(&member.out, &welcome);
        // The stream so far, every racer's but the member's own, one message a racer.
        for racer in &self.racers {
            if Some(racer.number) == member.racer || racer.relayed.frames() == 0 {
                continue;
            }
            let backlog = Bytes::copy_from_slice(racer.relayed.as_bytes());
            if !member.out.push(Outgoing::Binary(backlog)) {
                return Err(Close::TooSlow);
            }
        }
        tracing::info!(room = %self.id, role = ?member.role, racer = ?member.racer, "joined");
        self.members.insert(conn, member);
        self.publish();
        Ok(())
    }

    /// The racer seat for `joining`: theirs again (by key, or by player), or a new one in
    /// the lobby.
    fn seat(&mut self, joining: &Joining) -> Result<u8, Close> {
        if let Some(key) = &joining.resume {
            return self
                .racers
                .iter()
                .find(|r| &r.key == key)
                .map(|r| r.number)
                .ok_or(Close::UnknownKey);
        }
        if let Some(player) = &joining.player {
            if let Some(r) = self
                .racers
                .iter()
                .find(|r| r.player.as_ref().is_some_and(|p| p.id == player.id))
            {
                return Ok(r.number);
            }
        }
        if self.phase != Phase::Lobby {
            return Err(Close::RaceStarted);
        }
        if self.racers.len() >= limits::ROOM_RACERS_MAX {
            return Err(Close::RoomFull);
        }
        let number = u8::try_from(self.racers.len()).map_err(|_| Close::RoomFull)?;
        let name = match &joining.player {
            Some(p) => p.name.clone(),
            None => {
                self.guests += 1;
                format!("guest {}", self.guests)
            }
        };
        let racer = Racer::new(
            number,
            name,
            joining.player.clone(),
            crate::live::random_hex(16),
        );
        self.racers.push(racer);
        Ok(number)
    }

    pub(super) fn on_gone(&mut self, conn: ConnId) {
        let Some(member) = self.members.remove(&conn) else {
            return;
        };
        if let Some(number) = member.racer {
            let racer = &mut self.racers[usize::from(number)];
            if racer.conn == Some(conn) {
                racer.conn = None;
                if self.phase == Phase::Lobby {
                    self.remove_racer(number);
                } else if racer.state == RacerState::Racing || racer.state == RacerState::Waiting {
                    racer.cut_at = Some(Instant::now());
                    tracing::info!(room = %self.id, racer = number, "racer cut off: waiting for a resume");
                }
            }
        }
        if self.members.is_empty() && self.phase == Phase::Lobby {
            self.empty_since = Some(Instant::now());
        }
        self.publish();
    }

    /// A racer leaves the lobby: the seats after theirs move down one (numbers are seats).
    pub(super) fn remove_racer(&mut self, number: u8) {
        self.racers.remove(usize::from(number));
        for (i, racer) in self.racers.iter_mut().enumerate() {
            racer.number = i as u8;
            if let Some(conn) = racer.conn {
                if let Some(member) = self.members.get_mut(&conn) {
                    member.racer = Some(racer.number);
                }
            }
        }
        self.maybe_start();
    }
}
