//! A join that reached a process other than the room's home: the member's WebSocket is piped
//! to the home's, frame for frame, both ways, until either side closes. The home stamps and
//! judges every message as usual (the proxy's hop counts as network delay); the member sees
//! no difference but a few hundred µs.

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message as Upstream;
use tokio_tungstenite::tungstenite::protocol::CloseFrame as UpstreamClose;

use super::Close;

/// Pipes `member` to room `room_id`'s socket on `home` (a base URL, `http://host:port`).
pub async fn serve(member: WebSocket, home: String, room_id: String) {
    let url = format!(
        "{}/api/rooms/{room_id}/socket",
        home.replacen("http", "ws", 1)
    );
    let (mut to_member, mut from_member) = member.split();
    let config = Some(super::socket::socket_config());
    let upstream = match tokio_tungstenite::connect_async_with_config(url.as_str(), config, true)
        .await
    {
        Ok((upstream, _)) => upstream,
        Err(e) => {
            tracing::warn!(room = %room_id, home = %home, error = %e, "cannot reach a room's home");
            let why = Close::Unreachable(e.to_string());
            let frame = CloseFrame {
                code: why.code(),
                reason: why.reason().into(),
            };
            let _ = to_member.send(Message::Close(Some(frame))).await;
            return;
        }
    };
    tracing::info!(room = %room_id, home = %home, "proxying a member to the room's home");
    let (mut to_home, mut from_home) = upstream.split();
    let up = async {
        while let Some(Ok(message)) = from_member.next().await {
            let Some(message) = upstream_of(message) else {
                continue;
            };
            let closing = matches!(message, Upstream::Close(_));
            if to_home.send(message).await.is_err() || closing {
                break;
            }
        }
        let _ = to_home.close().await;
    };
    let down = async {
        while let Some(Ok(message)) = from_home.next().await {
            let Some(message) = member_of(message) else {
                continue;
            };
            let closing = matches!(message, Message::Close(_));
            if to_member.send(message).await.is_err() || closing {
                return;
            }
        }
        // The home went away without closing (it died, or the network between the two did):
        // the member is told, with a code a page resumes after (the room is taken up
        // elsewhere once its row goes stale).
        let why = Close::Unreachable("it went away mid-race; take your seat again".into());
        let frame = CloseFrame {
            code: why.code(),
            reason: why.reason().into(),
        };
        let _ = to_member.send(Message::Close(Some(frame))).await;
    };
    // Either side ending ends both.
    tokio::select! {
        () = up => {}
        () = down => {}
    }
}

fn upstream_of(message: Message) -> Option<Upstream> {
    Some(match message {
        Message::Text(text) => Upstream::text(text.as_str()),
        Message::Binary(bytes) => Upstream::binary(bytes),
        Message::Close(frame) => Upstream::Close(frame.map(|f| UpstreamClose {
            code: f.code.into(),
            reason: f.reason.as_str().into(),
        })),
        Message::Ping(_) | Message::Pong(_) => return None,
    })
}

fn member_of(message: Upstream) -> Option<Message> {
    Some(match message {
        Upstream::Text(text) => Message::Text(text.as_str().into()),
        Upstream::Binary(bytes) => Message::Binary(bytes),
        Upstream::Close(frame) => Message::Close(frame.map(|f| CloseFrame {
            code: f.code.into(),
            reason: f.reason.as_str().into(),
        })),
        Upstream::Ping(_) | Upstream::Pong(_) | Upstream::Frame(_) => return None,
    })
}
