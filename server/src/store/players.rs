//! Players: registration, the player behind a token or a name, hiding one.

use sqlx::Row;

use super::board::FEED_END;
use super::{FeedSeq, Result, Store};

/// A registered player, as its row (`players`): what the store hands out. The caller a token
/// names is `api::caller::Player`.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct PlayerRow {
    pub id: i64,
    pub name: String,
    pub hidden: bool,
}

/// The key names are unique on: the name in lower case (Unicode's default case mapping,
/// the same on every machine), so `Bot` and `bot` are the same name.
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
}

/// The players' queries: `store.players()`.
#[derive(Clone, Copy, Debug)]
pub struct Players<'a> {
    pub(super) store: &'a Store,
}

impl Players<'_> {
    /// Registers a player; `None` if the name (ignoring case) is taken.
    pub async fn register(
        &self,
        name: &str,
        token_hash: &[u8; 32],
        now_ms: i64,
    ) -> Result<Option<PlayerRow>> {
        const SQL: &str = "INSERT INTO players (name, name_key, token_hash, created_ms)
                           VALUES ($1, $2, $3, $4) RETURNING id";
        let inserted = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(name)
                .bind(name_key(name))
                .bind(&token_hash[..])
                .bind(now_ms)
                .fetch_one(pool)
                .await
                .map(|row| row.get::<i64, _>(0))
        });
        match inserted {
            Ok(id) => Ok(Some(PlayerRow {
                id,
                name: name.to_string(),
                hidden: false,
            })),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The player a token (by its hash) belongs to.
    pub async fn player_by_token(&self, token_hash: &[u8; 32]) -> Result<Option<PlayerRow>> {
        const SQL: &str = concat!(
            "SELECT p.id, ",
            player_name!(),
            " AS name, p.hidden FROM players p WHERE p.token_hash = $1"
        );
        let row = on_pool!(self.store, |pool| {
            sqlx::query_as(SQL)
                .bind(&token_hash[..])
                .fetch_optional(pool)
                .await?
        });
        Ok(row)
    }

    /// The player of a name (ignoring case).
    pub async fn player_by_name(&self, name: &str) -> Result<Option<PlayerRow>> {
        Ok(self.player_by_name_and_feed(name).await?.0)
    }

    /// The player of a name (ignoring case), and where the board change feed ended when it
    /// was read (one statement: see [`Runs::run_and_feed`](super::Runs::run_and_feed)).
    pub async fn player_by_name_and_feed(
        &self,
        name: &str,
    ) -> Result<(Option<PlayerRow>, FeedSeq)> {
        let sql = format!(
            "SELECT p.id, {name}, p.hidden, f.seq FROM (SELECT {FEED_END} AS seq) f
             LEFT JOIN players p ON p.name_key = $1",
            name = player_name!(),
        );
        let (player, seq) = on_pool!(self.store, |pool| {
            let row = sqlx::query(&sql)
                .bind(name_key(name))
                .fetch_one(pool)
                .await?;
            let player = match row.try_get::<Option<i64>, _>(0)? {
                Some(id) => Some(PlayerRow {
                    id,
                    name: row.try_get(1)?,
                    hidden: row.try_get(2)?,
                }),
                None => None,
            };
            (player, row.try_get::<i64, _>(3)?)
        });
        Ok((player, FeedSeq(seq)))
    }

    /// Hides or shows a player (by name, ignoring case) and so all their runs; the player's
    /// registered name, or `None` if there is no such player.
    pub async fn set_player_hidden(&self, name: &str, hidden: bool) -> Result<Option<String>> {
        const SQL: &str = "UPDATE players SET hidden = $1 WHERE name_key = $2 RETURNING id";
        // The name as served, by a second statement: SQLite's RETURNING cannot name the
        // table by an alias, which `player_name!` needs.
        const NAME: &str = concat!("SELECT ", player_name!(), " FROM players p WHERE p.id = $1");
        let name = on_pool!(self.store, |pool| {
            let id = sqlx::query(SQL)
                .bind(hidden)
                .bind(name_key(name))
                .fetch_optional(pool)
                .await?
                .map(|row| row.try_get::<i64, _>(0))
                .transpose()?;
            match id {
                Some(id) => Some(
                    sqlx::query(NAME)
                        .bind(id)
                        .fetch_one(pool)
                        .await?
                        .try_get::<String, _>(0)?,
                ),
                None => None,
            }
        });
        Ok(name)
    }
}
