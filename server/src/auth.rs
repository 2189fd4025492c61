//! API tokens: random, shown once, stored as their SHA-256; the admin token from the
//! environment.
//!
//! A player token is `pogo_` followed by 64 lowercase hex digits (32 bytes from the operating
//! system's generator, `getrandom`): 256 bits, so guessing is hopeless and the hash needs no
//! salt or slow key derivation (those defend low-entropy passwords). The database holds only
//! `sha256(token)`, so a leaked database leaks no token.

use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::store::{PlayerRow, Store, StoreError};

/// What every token starts with (so a leaked one is recognisable in logs and scanners).
pub const TOKEN_PREFIX: &str = "pogo_";
/// Random bytes in a token.
pub const TOKEN_BYTES: usize = 32;

/// A new random token and its hash.
pub fn new_token() -> Result<(String, [u8; 32]), ApiError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes)
        .map_err(|e| ApiError::Internal(format!("no randomness for a token: {e}")))?;
    let token = format!("{TOKEN_PREFIX}{}", hex(&bytes));
    let hash = token_hash(&token);
    Ok((token, hash))
}

/// The stored form of a token.
pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// The bearer token of a request: missing → 401 `missing_token`; present but not of a
/// token's shape → 401 `bad_token` (without a database lookup).
pub fn bearer(headers: &HeaderMap) -> Result<&str, ApiError> {
    let value = headers.get(AUTHORIZATION).ok_or(ApiError::MissingToken)?;
    let value = value.to_str().map_err(|_| ApiError::BadToken)?;
    let (scheme, token) = value.split_once(' ').ok_or(ApiError::BadToken)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(ApiError::MissingToken);
    }
    Ok(token.trim())
}

/// Whether `token` has the shape of a player token.
pub fn is_player_token(token: &str) -> bool {
    token.strip_prefix(TOKEN_PREFIX).is_some_and(|hex| {
        hex.len() == 2 * TOKEN_BYTES && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// Why a token names no player who may play.
#[derive(Debug)]
pub enum TokenRefused {
    /// Not of a player token's shape (refused without a database lookup).
    NotAPlayerToken,
    /// No player has it.
    Unknown,
    /// An admin hid the player.
    Hidden { name: String },
    /// The database could not answer.
    Store(StoreError),
}

/// The player a player token names, registered and not hidden: the one rule for a request's
/// bearer token (`api::caller::Player`) and a live socket's `hello` (`live::socket`), each of
/// which words the refusal its own way.
pub async fn player_of_token(store: &Store, token: &str) -> Result<PlayerRow, TokenRefused> {
    if !is_player_token(token) {
        return Err(TokenRefused::NotAPlayerToken);
    }
    let player = store
        .players()
        .player_by_token(&token_hash(token))
        .await
        .map_err(TokenRefused::Store)?
        .ok_or(TokenRefused::Unknown)?;
    if player.hidden {
        return Err(TokenRefused::Hidden { name: player.name });
    }
    Ok(player)
}

/// The admin token, kept as its hash: comparing hashes takes the same time whatever the
/// guess shares with the token, so a timing attack learns nothing.
#[derive(Clone)]
pub struct AdminToken([u8; 32]);

impl std::fmt::Debug for AdminToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AdminToken(…)")
    }
}

impl AdminToken {
    pub fn new(token: &str) -> AdminToken {
        AdminToken(token_hash(token))
    }

    /// Checks a request's bearer token: 403 `admin_disabled` when there is no admin token,
    /// 401 when the request has none, 403 `not_admin` when it is another.
    pub fn check(admin: Option<&AdminToken>, headers: &HeaderMap) -> Result<(), ApiError> {
        let admin = admin.ok_or(ApiError::AdminDisabled)?;
        let token = bearer(headers)?;
        if token_hash(token) == admin.0 {
            Ok(())
        } else {
            Err(ApiError::NotAdmin)
        }
    }
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(2 * bytes.len()), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn tokens_are_random_well_formed_and_hashed() {
        let (a, hash_a) = new_token().unwrap();
        let (b, _) = new_token().unwrap();
        assert_ne!(a, b);
        assert!(is_player_token(&a), "{a}");
        assert_eq!(token_hash(&a), hash_a);
        assert_ne!(&hash_a[..], a.as_bytes());
        for bad in [
            "",
            "pogo_",
            "pogo_xyz",
            &a.to_uppercase(),
            &format!("{a}0"),
            &a[1..],
        ] {
            assert!(!is_player_token(bad), "{bad}");
        }
    }

    #[test]
    fn bearer_needs_the_scheme_and_the_admin_check_says_which_failure() {
        let mut headers = HeaderMap::new();
        assert!(matches!(bearer(&headers), Err(ApiError::MissingToken)));
        headers.insert(AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert!(matches!(bearer(&headers), Err(ApiError::MissingToken)));
        headers.insert(
            AUTHORIZATION,
            HeaderValue::from_static("Bearer  secret-admin-token "),
        );
        assert_eq!(bearer(&headers).unwrap(), "secret-admin-token");
        let admin = AdminToken::new("secret-admin-token");
        assert!(AdminToken::check(Some(&admin), &headers).is_ok());
        assert!(matches!(
            AdminToken::check(None, &headers),
            Err(ApiError::AdminDisabled)
        ));
        let other = AdminToken::new("another-admin-token");
        assert!(matches!(
            AdminToken::check(Some(&other), &headers),
            Err(ApiError::NotAdmin)
        ));
    }
}
