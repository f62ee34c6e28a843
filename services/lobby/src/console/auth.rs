//! The console's login: the director credential hashed at rest, compared in constant time, and
//! sessions that expire.
//!
//! The credential is a password given when the platform starts (`FLOOR_CONSOLE_PASSWORD` or a
//! file). Only its PBKDF2-HMAC-SHA256 hash ([`PasswordHash`], RFC 8018 §5.2, with a random
//! 16-byte salt and [`ITERATIONS`] rounds) is kept; the plain text is dropped once hashed. A
//! login hashes what was typed with the same salt and compares the two hashes with
//! [`subtle::ConstantTimeEq`], so the time a wrong guess takes says nothing about how close it was.
//!
//! A session is a random token (256 bits from the OS, read with `getrandom`) handed to the
//! browser in a cookie; the server keeps only the SHA-256 of each token, the director's name, when the session ends and its form token (the CSRF check of every
//! action), in the KV bucket `floor-console-sessions` (entries live as long as a session), so a
//! restarted lobby, or another lobby process, knows every session. Time comes from the platform's [`floor_runtime::Clock`], so a test moves a manual
//! clock past the end instead of waiting.

use async_nats::jetstream::kv;
use chrono::{DateTime, Utc};
use floor_runtime::encoding::hex;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use subtle::ConstantTimeEq;

/// PBKDF2 rounds for a password hashed at start: OWASP's 2023 figure for PBKDF2-HMAC-SHA256 is
/// 600,000; a login costs that once, and logins are rare (one director, a session of hours).
pub const ITERATIONS: u32 = 600_000;

/// The shortest password the console accepts: no default and no trivial credential.
pub const SHORTEST_PASSWORD: usize = 8;

/// The console's credential as kept in memory: salt, rounds and PBKDF2-HMAC-SHA256 output.
#[derive(Clone)]
pub struct PasswordHash {
    salt: [u8; 16],
    iterations: u32,
    hash: [u8; 32],
}

impl std::fmt::Debug for PasswordHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the hash itself, even in a debug print of the configuration.
        write!(f, "PasswordHash(pbkdf2-sha256, {} rounds)", self.iterations)
    }
}

/// Why a password is not accepted as the console's credential.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CredentialError {
    /// Shorter than [`SHORTEST_PASSWORD`] characters (an empty one included).
    #[error("the console password must have at least {SHORTEST_PASSWORD} characters")]
    TooShort,
}

impl PasswordHash {
    /// Hashes `password` with a fresh random salt and [`ITERATIONS`] rounds.
    ///
    /// # Errors
    /// [`CredentialError::TooShort`].
    pub fn new(password: &str) -> Result<Self, CredentialError> {
        Self::with_iterations(password, ITERATIONS)
    }

    /// [`PasswordHash::new`] with `iterations` rounds (tests use few).
    ///
    /// # Errors
    /// [`CredentialError::TooShort`].
    pub fn with_iterations(password: &str, iterations: u32) -> Result<Self, CredentialError> {
        if password.chars().count() < SHORTEST_PASSWORD {
            return Err(CredentialError::TooShort);
        }
        let mut salt = [0u8; 16];
        salt.copy_from_slice(&random_bytes()[..16]);
        let iterations = iterations.max(1);
        Ok(Self { salt, iterations, hash: pbkdf2_sha256(password.as_bytes(), &salt, iterations) })
    }

    /// Whether `attempt` is the password: its hash compared in constant time.
    pub fn verify(&self, attempt: &str) -> bool {
        let hash = pbkdf2_sha256(attempt.as_bytes(), &self.salt, self.iterations);
        bool::from(hash.ct_eq(&self.hash))
    }
}

/// PBKDF2 (RFC 8018 §5.2) with HMAC-SHA256, one 32-byte block: RustCrypto's `pbkdf2` and
/// `hmac` (issue 35: an audited implementation instead of our own HMAC and rounds).
fn pbkdf2_sha256(password: &[u8], salt: &[u8], iterations: u32) -> [u8; 32] {
    pbkdf2::pbkdf2_hmac_array::<Sha256, 32>(password, salt, iterations)
}

/// 32 bytes from the operating system's random source (`getrandom`).
pub(super) fn random_bytes() -> [u8; 32] {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system's random source answers");
    bytes
}

/// A director signed in.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Session {
    /// The name the director gave at login: who did each action.
    pub director: String,
    /// When the session ends.
    pub expires_at: DateTime<Utc>,
    /// The token every form of this session carries (the CSRF check).
    pub form_token: String,
}

impl Session {
    /// Whether `token` is this session's form token (constant time).
    pub fn form_token_is(&self, token: &str) -> bool {
        bool::from(self.form_token.as_bytes().ct_eq(token.as_bytes()))
    }
}

/// The open sessions, by the SHA-256 of their token: in the KV bucket
/// [`super::SESSIONS_BUCKET`] when the console runs on the backbone (every lobby process reads the
/// same sessions, a restart keeps them, and a logout anywhere ends the session everywhere), in
/// this process's memory otherwise. The token itself is kept nowhere: only its hash names the
/// session, so whoever reads the bucket still cannot present a cookie.
pub struct Sessions {
    ttl: chrono::Duration,
    // std Mutex: held for one map operation, never across an await.
    open: Mutex<HashMap<[u8; 32], Session>>,
    store: Option<kv::Store>,
}

/// Why a session could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the session could not be stored: {0}")]
pub struct NotStored(String);

impl Sessions {
    /// No session yet, in memory; each one lasts `ttl`.
    pub fn new(ttl: chrono::Duration) -> Self {
        Self { ttl, open: Mutex::default(), store: None }
    }

    /// Sessions kept in `store` (a bucket whose entries live at least `ttl`).
    pub fn kept_in(ttl: chrono::Duration, store: kv::Store) -> Self {
        Self { ttl, open: Mutex::default(), store: Some(store) }
    }

    /// How long a session lasts.
    pub fn ttl(&self) -> chrono::Duration {
        self.ttl
    }

    /// Opens a session for `director` at `now`: the token for the cookie, and the session.
    ///
    /// # Errors
    /// When the bucket does not take it.
    pub async fn open(&self, director: &str, now: DateTime<Utc>) -> Result<(String, Session), NotStored> {
        let token = hex(&random_bytes());
        let session = Session { director: director.to_owned(), expires_at: now + self.ttl, form_token: hex(&random_bytes()) };
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        match &self.store {
            Some(store) => {
                let value = serde_json::to_vec(&session).map_err(|e| NotStored(e.to_string()))?;
                store.put(hex(&key), value.into()).await.map_err(|e| NotStored(e.to_string()))?;
            }
            None => {
                let mut open = self.open.lock().expect("sessions poisoned");
                // Ended sessions go whenever one opens, so the map holds only live ones and a few.
                open.retain(|_, s| s.expires_at > now);
                open.insert(key, session.clone());
            }
        }
        Ok((token, session))
    }

    /// The session of `token` at `now`; `None` for a token never issued, closed, or expired
    /// (an expired one is forgotten), and when the bucket cannot be read (refused, not guessed).
    pub async fn check(&self, token: &str, now: DateTime<Utc>) -> Option<Session> {
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let Some(store) = &self.store else {
            let mut open = self.open.lock().expect("sessions poisoned");
            return match open.get(&key) {
                Some(session) if session.expires_at > now => Some(session.clone()),
                Some(_) => {
                    open.remove(&key);
                    None
                }
                None => None,
            };
        };
        let stored = match store.get(hex(&key)).await {
            Ok(stored) => stored?,
            Err(e) => {
                tracing::warn!(error = %e, "console: the sessions bucket cannot be read; the request is refused");
                return None;
            }
        };
        let session: Session = serde_json::from_slice(&stored).ok()?;
        if session.expires_at > now {
            return Some(session);
        }
        // The bucket's age limit removes it too; gone now, whoever asks.
        let _ = store.delete(hex(&key)).await;
        None
    }

    /// Ends the session of `token` (logout).
    pub async fn close(&self, token: &str) {
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        match &self.store {
            Some(store) => {
                if let Err(e) = store.delete(hex(&key)).await {
                    tracing::warn!(error = %e, "console: a logout could not remove its session");
                }
            }
            None => {
                self.open.lock().expect("sessions poisoned").remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pbkdf2_matches_the_published_test_vectors() {
        // The published PBKDF2-HMAC-SHA256 vectors for P = "password", S = "salt", dkLen = 32
        // (RFC 6070's cases, computed with SHA-256).
        let cases = [
            ("one round", 1, "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"),
            ("two rounds", 2, "ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43"),
            ("4096 rounds", 4096, "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"),
        ];
        for (case, rounds, expected) in cases {
            assert_eq!(hex(&pbkdf2_sha256(b"password", b"salt", rounds)), expected, "{case}");
        }
        let long_key = [b'k'; 100];
        assert_eq!(pbkdf2_sha256(&long_key, b"salt", 1), pbkdf2_sha256(&Sha256::digest(long_key), b"salt", 1), "a long key is hashed");
    }

    #[test]
    fn the_password_verifies_and_nothing_else_does() {
        let hash = PasswordHash::with_iterations("correct horse", 10).unwrap();
        assert!(hash.verify("correct horse"));
        for wrong in ["", "correct hors", "correct horse ", "Correct horse"] {
            assert!(!hash.verify(wrong), "{wrong:?}");
        }
        let again = PasswordHash::with_iterations("correct horse", 10).unwrap();
        assert_ne!(hash.salt, again.salt, "each hash has its own salt");
        assert_ne!(hash.hash, again.hash);
        assert!(!format!("{hash:?}").contains(&hex(&hash.hash)), "a debug print hides the hash");
    }

    #[test]
    fn a_short_or_empty_password_is_refused() {
        assert_eq!(PasswordHash::new("").unwrap_err(), CredentialError::TooShort);
        assert_eq!(PasswordHash::new("1234567").unwrap_err(), CredentialError::TooShort);
        assert!(PasswordHash::with_iterations("12345678", 1).is_ok());
    }

    #[tokio::test]
    async fn a_session_lasts_its_time_and_no_longer() {
        let now: DateTime<Utc> = "2027-01-10T18:00:00Z".parse().unwrap();
        let sessions = Sessions::new(chrono::Duration::hours(12));
        let (token, session) = sessions.open("Ana <TD>", now).await.unwrap();
        assert_eq!(session.expires_at, now + chrono::Duration::hours(12));
        assert_eq!(sessions.check(&token, now + chrono::Duration::hours(11)).await.map(|s| s.director), Some("Ana <TD>".into()));
        assert_eq!(sessions.check(&token, now + chrono::Duration::hours(12)).await, None, "expired at its end");
        assert_eq!(sessions.check(&token, now).await, None, "an expired session is forgotten");
    }

    #[tokio::test]
    async fn forged_and_closed_tokens_open_nothing() {
        let now: DateTime<Utc> = "2027-01-10T18:00:00Z".parse().unwrap();
        let sessions = Sessions::new(chrono::Duration::hours(1));
        let (token, session) = sessions.open("ana", now).await.unwrap();
        let (other, _) = sessions.open("ben", now).await.unwrap();
        assert_ne!(token, other);
        assert_eq!(token.len(), 64);
        assert_eq!(sessions.check(&"0".repeat(64), now).await, None, "a forged token");
        assert_eq!(sessions.check("", now).await, None);
        assert!(session.form_token_is(&session.form_token.clone()));
        assert!(!session.form_token_is("") && !session.form_token_is(&token), "the form token is its own");
        sessions.close(&token).await;
        assert_eq!(sessions.check(&token, now).await, None, "logged out");
        assert!(sessions.check(&other, now).await.is_some(), "the other session is untouched");
    }
}
