//! A member's control messages (text frames after the hello): ping, ready, leave and away.

use super::Room;
use super::publish::send_text;
use crate::live::Close;
use crate::live::command::ConnId;
use crate::live::wire::{LiveClientMessage, LiveServerMessage, Phase, RacerState};

impl Room {
    pub(super) fn on_text(&mut self, conn: ConnId, message: LiveClientMessage) {
        let Some(member) = self.members.get(&conn) else {
            return;
        };
        match message {
            LiveClientMessage::Ping { id } => {
                let now_us = crate::live::now_us();
                send_text(
                    &member.out,
                    &LiveServerMessage::Pong {
                        id,
                        server_ms: now_us.div_euclid(1000),
                        server_us: now_us,
                    },
                );
            }
            LiveClientMessage::Ready { ready } => {
                let Some(number) = member.racer else {
                    self.close(conn, Close::NotARacer);
                    return;
                };
                if self.phase == Phase::Lobby {
                    self.racers[usize::from(number)].ready = ready;
                    self.maybe_start();
                    self.publish();
                }
            }
            LiveClientMessage::Leave {} => {
                if let Some(number) = member.racer {
                    if self.phase == Phase::Lobby {
                        self.members.remove(&conn);
                        self.remove_racer(number);
                    } else {
                        self.end_racer(number, RacerState::Left);
                    }
                }
                self.close(conn, Close::Left);
                self.publish();
            }
            LiveClientMessage::Away {} => {
                if let Some(number) = member.racer {
                    if self.phase != Phase::Lobby {
                        self.racers[usize::from(number)].away = true;
                    }
                }
            }
            LiveClientMessage::Hello { .. } => self.close(conn, Close::HelloTwice),
        }
    }
}
