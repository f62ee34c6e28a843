//! Sign-ins after wrong passwords (issue 34): a guess is counted when it starts, one client
//! has at most one password check in flight, one client's guesses do not delay another's
//! sign-in, and a ceiling over all clients still leaves the director a way in.
//!
//! **Per client** ([`ClientKey`]: the peer's IPv4 address or IPv6 /64, or behind a configured
//! reverse proxy the last hop of its `X-Forwarded-For`): [`FREE_FAILURES`] wrong passwords in
//! a row cost only the wrong answer; each further one closes sign-in *for that client* for a
//! wait that doubles from [`FIRST_WAIT_SECONDS`] up to [`LONGEST_WAIT_SECONDS`]. An attempt is
//! reserved before its password is hashed ([`LoginGuard::begin`]): it is counted as wrong at
//! once (a right password then undoes it), and while it is being checked every other attempt
//! of the same client is refused without hashing. So a burst of 100 concurrent wrong passwords
//! costs one PBKDF2 check, and the other 99 are told to wait.
//!
//! **Over all clients**: [`GLOBAL_FREE_FAILURES`] wrong passwords in a row from anywhere, then
//! the same doubling waits for everyone, and at most [`CHECKS_IN_FLIGHT`] password checks at a
//! time (each is a fraction of a second of a core). Many addresses guessing could so keep the
//! director out; the **recovery code** is the way in: made at start, logged once, kept only as
//! its SHA-256, it lets a sign-in past the global wait and the global limit of checks (never
//! past the per-client wait of the address that is guessing). A sign-in that used it spends
//! it, and a new one is made and logged. The code is 80 random bits checked without PBKDF2: it
//! is not a password anyone chose, and the per-client count limits guesses at it as well.
//!
//! The counts live in this process (another lobby process has its own); a restart clears
//! them. Pure: time comes in as `now`.

use super::auth::random_bytes;
use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use subtle::ConstantTimeEq;

/// Wrong passwords in a row from one client that cost only the wrong answer (a tired director
/// mistypes).
pub const FREE_FAILURES: u32 = 5;

/// Wrong passwords in a row from all clients together before sign-in closes for everyone
/// (without the recovery code).
pub const GLOBAL_FREE_FAILURES: u32 = 50;

/// The first wait after the free failures; each further wrong password doubles it.
pub const FIRST_WAIT_SECONDS: i64 = 15;

/// The longest wait: a guess every five minutes at most, and a director who mistyped more than
/// five times waits no longer than that.
pub const LONGEST_WAIT_SECONDS: i64 = 300;

/// Password checks in flight at once, all clients together: PBKDF2 is a fraction of a second of
/// a core each, and the lobby has other work.
pub const CHECKS_IN_FLIGHT: u32 = 4;

/// What a client refused because its own check is still running is told to wait.
pub const CHECKING_WAIT_SECONDS: i64 = 1;

/// A client that has not tried for this long is forgotten (its count starts again).
pub const FORGET_AFTER_SECONDS: i64 = 3_600;

/// The most clients the guard remembers; when that many have tried within
/// [`FORGET_AFTER_SECONDS`], a new one is refused as if sign-in were closed to everyone (the
/// recovery code still opens it).
pub const MOST_CLIENTS: usize = 100_000;

/// Who is signing in, as far as the lobby can tell: an IPv4 address, or the /64 an IPv6
/// address is in (one host commonly has a whole /64 to pick addresses from).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientKey(IpAddr);

impl ClientKey {
    /// The key of `ip` (an IPv4-mapped IPv6 address is its IPv4 address).
    pub fn of(ip: IpAddr) -> Self {
        match ip {
            IpAddr::V4(v4) => Self(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Self(IpAddr::V4(v4)),
                None => Self(IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into())),
            },
        }
    }

    /// The client of a request from `peer` with these `X-Forwarded-For` values: when `peer` is
    /// one of the `trusted` proxies, the last address in the header (the one the proxy saw;
    /// anything before it the client wrote itself); otherwise, or when the header has no
    /// address there, `peer`.
    pub fn of_request<'a>(peer: IpAddr, forwarded_for: impl Iterator<Item = &'a str>, trusted: &[IpAddr]) -> Self {
        if !trusted.contains(&peer) {
            return Self::of(peer);
        }
        let last = forwarded_for.flat_map(|v| v.split(',')).last().map(str::trim);
        match last.and_then(|a| a.parse::<IpAddr>().ok()) {
            Some(client) => Self::of(client),
            None => Self::of(peer),
        }
    }
}

impl std::fmt::Display for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

/// A recovery code as the director types it: 20 hex digits in groups of four.
#[derive(Clone, PartialEq, Eq)]
pub struct RecoveryCode(String);

impl RecoveryCode {
    /// A fresh random code (80 bits from the operating system).
    pub fn new() -> Self {
        let digits: String = random_bytes()[..10].iter().map(|b| format!("{b:02x}")).collect();
        let groups: Vec<&str> = (0..5).map(|i| &digits[i * 4..i * 4 + 4]).collect();
        Self(groups.join("-"))
    }

    /// A code given in advance (tests).
    pub fn given(code: &str) -> Self {
        Self(code.to_owned())
    }

    /// The code, to log once.
    pub fn reveal(&self) -> &str {
        &self.0
    }
}

impl Default for RecoveryCode {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for RecoveryCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RecoveryCode(…)")
    }
}

/// What the guard keeps of a code: the SHA-256 of its digits, case and dashes ignored.
fn code_hash(code: &str) -> [u8; 32] {
    let digits: String = code.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect();
    Sha256::digest(digits.as_bytes()).into()
}

/// Why an attempt is refused before its password is looked at. Every refusal is a 429 with
/// [`Refusal::retry_after`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// This client's previous attempt is still being checked.
    Checking,
    /// This client had too many wrong passwords: closed for it for this long.
    ClientClosed(Duration),
    /// Too many wrong passwords from everywhere: closed for everyone for this long (the
    /// recovery code opens it).
    Closed(Duration),
    /// [`CHECKS_IN_FLIGHT`] checks are running (the recovery code passes).
    Busy,
    /// A recovery code was given and it is not the one (counted as a wrong attempt).
    WrongRecoveryCode,
}

impl Refusal {
    /// How long the client should wait before trying again.
    pub fn retry_after(&self) -> Duration {
        match self {
            Self::ClientClosed(wait) | Self::Closed(wait) => *wait,
            Self::Checking | Self::Busy | Self::WrongRecoveryCode => Duration::seconds(CHECKING_WAIT_SECONDS),
        }
    }
}

/// One client's wrong passwords.
#[derive(Debug)]
struct Client {
    failures: u32,
    closed_until: Option<DateTime<Utc>>,
    checking: bool,
    last_attempt: DateTime<Utc>,
}

#[derive(Debug, Default)]
struct State {
    clients: HashMap<ClientKey, Client>,
    failures: u32,
    closed_until: Option<DateTime<Utc>>,
    checking: u32,
    recovery: [u8; 32],
}

/// The wait after `failures` wrong passwords in a row when `free` of them cost nothing.
fn wait_after(failures: u32, free: u32) -> Option<Duration> {
    let beyond = failures.checked_sub(free + 1)?;
    let seconds = FIRST_WAIT_SECONDS.checked_shl(beyond.min(30)).unwrap_or(i64::MAX).min(LONGEST_WAIT_SECONDS);
    Some(Duration::seconds(seconds))
}

/// The sign-in guard (see the module docs). Shared by the login handlers of one process.
#[derive(Debug)]
pub struct LoginGuard {
    // std Mutex: held for a few map operations, never across an await (the hashing runs with
    // the lock released, between `begin` and the attempt's end).
    state: Mutex<State>,
}

impl LoginGuard {
    /// A guard whose recovery code is `code` (kept only as its hash).
    pub fn new(code: &RecoveryCode) -> Self {
        Self { state: Mutex::new(State { recovery: code_hash(code.reveal()), ..State::default() }) }
    }

    /// Reserves a password check for `client` at `now`, or says why not. `recovery`: the code
    /// the form carried, looked at only when sign-in is closed to everyone or busy.
    ///
    /// The attempt counts as a wrong password from here on (for the client and for everyone),
    /// so the waits it causes hold whether or not its check ever ends; [`Attempt::succeeded`]
    /// undoes that, and dropping the attempt frees the client for its next one.
    ///
    /// # Errors
    /// A [`Refusal`]: nothing is to be hashed.
    pub fn begin(self: &Arc<Self>, client: ClientKey, now: DateTime<Utc>, recovery: Option<&str>) -> Result<Attempt, Refusal> {
        let mut state = self.state.lock().expect("login guard poisoned");
        let known = state.clients.contains_key(&client);
        if !known && state.clients.len() >= MOST_CLIENTS {
            let forget = now - Duration::seconds(FORGET_AFTER_SECONDS);
            state.clients.retain(|_, c| c.checking || c.last_attempt > forget || c.closed_until.is_some_and(|u| u > now));
        }
        let crowded = !known && state.clients.len() >= MOST_CLIENTS;
        if let Some(c) = state.clients.get(&client) {
            if c.checking {
                return Err(Refusal::Checking);
            }
            if let Some(wait) = c.closed_until.filter(|u| *u > now).map(|u| u - now) {
                return Err(Refusal::ClientClosed(wait));
            }
        }
        let global_wait = state.closed_until.filter(|u| *u > now).map(|u| u - now);
        let held = match (global_wait, crowded) {
            (Some(wait), _) => Some(Refusal::Closed(wait)),
            (None, true) => Some(Refusal::Closed(Duration::seconds(FIRST_WAIT_SECONDS))),
            (None, false) if state.checking >= CHECKS_IN_FLIGHT => Some(Refusal::Busy),
            (None, false) => None,
        };
        let recovered = match (held, recovery.filter(|r| !r.trim().is_empty())) {
            (None, _) => false,
            (Some(refusal), None) => return Err(refusal),
            (Some(_), Some(code)) => {
                let right = bool::from(code_hash(code).ct_eq(&state.recovery));
                if !right {
                    Self::count(&mut state, client, now);
                    return Err(Refusal::WrongRecoveryCode);
                }
                true
            }
        };
        Self::count(&mut state, client, now);
        state.clients.get_mut(&client).expect("counted").checking = true;
        state.checking += 1;
        Ok(Attempt { guard: self.clone(), client, recovered })
    }

    /// Counts a wrong attempt of `client` at `now` (for it and for everyone).
    fn count(state: &mut State, client: ClientKey, now: DateTime<Utc>) {
        let c = state.clients.entry(client).or_insert(Client { failures: 0, closed_until: None, checking: false, last_attempt: now });
        c.failures = c.failures.saturating_add(1);
        c.last_attempt = now;
        if let Some(wait) = wait_after(c.failures, FREE_FAILURES) {
            c.closed_until = Some(now + wait);
        }
        state.failures = state.failures.saturating_add(1);
        if let Some(wait) = wait_after(state.failures, GLOBAL_FREE_FAILURES) {
            state.closed_until = Some(now + wait);
        }
    }

    /// How long sign-in stays closed to `client` at `now`, by its own count or everyone's
    /// (`None`: open).
    pub fn closed_for(&self, client: ClientKey, now: DateTime<Utc>) -> Option<Duration> {
        let state = self.state.lock().expect("login guard poisoned");
        let own = state.clients.get(&client).and_then(|c| c.closed_until);
        [own, state.closed_until].into_iter().flatten().filter(|u| *u > now).max().map(|u| u - now)
    }
}

/// A password check reserved by [`LoginGuard::begin`]: counted as wrong until
/// [`Attempt::succeeded`]; dropping it (after a wrong password, or a request that went away
/// mid-check) lets its client try again when its wait allows.
#[derive(Debug)]
pub struct Attempt {
    guard: Arc<LoginGuard>,
    client: ClientKey,
    recovered: bool,
}

impl Attempt {
    /// Whether this attempt came past a closed sign-in with the recovery code.
    pub fn recovered(&self) -> bool {
        self.recovered
    }

    /// The password was right: the client's count and everyone's start again. When the
    /// recovery code was used, it is spent: the new one is returned, to be logged.
    pub fn succeeded(self, now: DateTime<Utc>) -> Option<RecoveryCode> {
        let mut state = self.guard.state.lock().expect("login guard poisoned");
        if let Some(c) = state.clients.get_mut(&self.client) {
            (c.failures, c.closed_until, c.last_attempt) = (0, None, now);
        }
        (state.failures, state.closed_until) = (0, None);
        self.recovered.then(|| {
            let code = RecoveryCode::new();
            state.recovery = code_hash(code.reveal());
            code
        })
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        let mut state = self.guard.state.lock().expect("login guard poisoned");
        state.checking = state.checking.saturating_sub(1);
        if let Some(c) = state.clients.get_mut(&self.client) {
            c.checking = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> DateTime<Utc> {
        "2026-12-06T20:00:00Z".parse().unwrap()
    }

    fn client(n: u32) -> ClientKey {
        ClientKey::of(IpAddr::from([10, 0, (n >> 8) as u8, n as u8]))
    }

    fn guard(code: &str) -> Arc<LoginGuard> {
        Arc::new(LoginGuard::new(&RecoveryCode::given(code)))
    }

    /// One wrong password from `who` at `now`, checked (and found wrong) if the guard lets it.
    fn wrong(guard: &Arc<LoginGuard>, who: ClientKey, now: DateTime<Utc>) -> Result<(), Refusal> {
        guard.begin(who, now, None).map(drop)
    }

    #[test]
    fn five_wrong_passwords_are_free_then_each_closes_sign_in_for_twice_as_long_up_to_five_minutes() {
        let guard = guard("code");
        let me = client(1);
        for _ in 0..FREE_FAILURES {
            assert_eq!(wrong(&guard, me, start()), Ok(()));
        }
        assert_eq!(guard.closed_for(me, start()), None, "still open after five");
        let mut waits = Vec::new();
        let mut now = start();
        for _ in 0..7 {
            assert_eq!(wrong(&guard, me, now), Ok(()), "open again once the wait is over");
            let wait = guard.closed_for(me, now).expect("closed").num_seconds();
            assert_eq!(wrong(&guard, me, now), Err(Refusal::ClientClosed(Duration::seconds(wait))), "refused while closed");
            waits.push(wait);
            now += Duration::seconds(wait);
        }
        assert_eq!(waits, [15, 30, 60, 120, 240, 300, 300]);
        let attempt = guard.begin(me, now, None).expect("open");
        assert_eq!(attempt.succeeded(now), None, "no code used, none spent");
        assert_eq!(guard.closed_for(me, now), None, "a right password starts the count again");
        assert_eq!(wrong(&guard, me, now), Ok(()));
        assert_eq!(guard.closed_for(me, now), None);
    }

    #[test]
    fn a_burst_of_a_hundred_concurrent_guesses_is_one_check_and_ninety_nine_refusals() {
        let guard = guard("code");
        let me = client(1);
        let first = guard.begin(me, start(), None).expect("the first is checked");
        let refused: Vec<Refusal> = (0..99).filter_map(|_| guard.begin(me, start(), None).err()).collect();
        assert_eq!(refused.len(), 99);
        assert!(refused.iter().all(|r| *r == Refusal::Checking && r.retry_after() == Duration::seconds(1)));
        drop(first);
        assert!(guard.begin(me, start(), None).is_ok(), "the next one is checked once the first has ended");
    }

    #[test]
    fn an_attempt_counts_when_it_starts_and_its_wait_holds_even_if_its_check_never_ends() {
        let guard = guard("code");
        let me = client(1);
        for _ in 0..FREE_FAILURES {
            wrong(&guard, me, start()).unwrap();
        }
        let sixth = guard.begin(me, start(), None).expect("checked");
        assert_eq!(guard.closed_for(me, start()), Some(Duration::seconds(15)), "closed as soon as it started");
        drop(sixth);
        assert_eq!(wrong(&guard, me, start()), Err(Refusal::ClientClosed(Duration::seconds(15))));
        let right = guard.begin(me, start() + Duration::seconds(15), None).expect("open after the wait");
        right.succeeded(start() + Duration::seconds(15));
        assert_eq!(guard.closed_for(me, start() + Duration::seconds(15)), None, "the right password undid its count");
    }

    #[test]
    fn one_clients_wrong_passwords_do_not_delay_anothers_sign_in() {
        let guard = guard("code");
        let (mallory, ana) = (client(1), client(2));
        for _ in 0..20 {
            let _ = wrong(&guard, mallory, start());
        }
        assert!(guard.closed_for(mallory, start()).is_some());
        let _busy = guard.begin(mallory, start() + Duration::seconds(15), None).expect("mallory's check in flight");
        assert_eq!(guard.closed_for(ana, start()), None);
        let attempt = guard.begin(ana, start(), None).expect("ana is not held by mallory's count or check");
        attempt.succeeded(start());
    }

    #[test]
    fn many_clients_guessing_close_sign_in_for_everyone_and_the_recovery_code_opens_it_once() {
        let guard = guard("AB12-cd34");
        for n in 0..GLOBAL_FREE_FAILURES {
            wrong(&guard, client(n), start()).unwrap();
        }
        let (director, guesser) = (client(9_000), client(9_001));
        assert_eq!(wrong(&guard, guesser, start()), Ok(()), "the 51st from anywhere is checked…");
        assert_eq!(guard.begin(director, start(), None).unwrap_err(), Refusal::Closed(Duration::seconds(15)), "…and closes it");
        assert_eq!(guard.begin(director, start(), Some("0000-0000")).unwrap_err(), Refusal::WrongRecoveryCode);
        let attempt = guard.begin(director, start(), Some(" ab12CD34 ")).expect("the code passes the global wait");
        assert!(attempt.recovered());
        let next = attempt.succeeded(start()).expect("the code is spent and a new one made");
        assert_ne!(code_hash(next.reveal()), code_hash("ab12cd34"));
        assert_eq!(guard.closed_for(director, start()), None, "a right password opens it for everyone");

        // Closed again: the old code no longer passes, the new one does.
        for n in 0..=GLOBAL_FREE_FAILURES {
            let _ = wrong(&guard, client(n + 100), start());
        }
        assert_eq!(guard.begin(director, start(), Some("ab12-cd34")).unwrap_err(), Refusal::WrongRecoveryCode, "spent");
        assert!(guard.begin(director, start(), Some(next.reveal())).is_ok());
    }

    #[test]
    fn the_recovery_code_does_not_pass_the_guessing_clients_own_wait() {
        let guard = guard("code");
        let guesser = client(1);
        for _ in 0..=FREE_FAILURES {
            wrong(&guard, guesser, start()).unwrap();
        }
        assert_eq!(guard.begin(guesser, start(), Some("code")).unwrap_err(), Refusal::ClientClosed(Duration::seconds(15)));
    }

    #[test]
    fn at_most_four_checks_run_at_once_and_the_recovery_code_passes_that_too() {
        let guard = guard("code");
        let running: Vec<Attempt> = (0..CHECKS_IN_FLIGHT).map(|n| guard.begin(client(n), start(), None).unwrap()).collect();
        assert_eq!(guard.begin(client(100), start(), None).unwrap_err(), Refusal::Busy);
        assert!(guard.begin(client(101), start(), Some("code")).is_ok());
        drop(running);
        assert!(guard.begin(client(100), start(), None).is_ok(), "free again");
    }

    #[test]
    fn a_client_is_an_ipv4_address_or_an_ipv6_64_and_a_proxy_is_believed_only_when_trusted() {
        let v6 = |s: &str| ClientKey::of(s.parse().unwrap());
        assert_eq!(v6("2001:db8:1:2:aaaa::1"), v6("2001:db8:1:2:bbbb::2"), "one /64");
        assert_ne!(v6("2001:db8:1:2::1"), v6("2001:db8:1:3::1"));
        assert_eq!(v6("::ffff:192.0.2.7"), v6("192.0.2.7"));
        assert_eq!(v6("2001:db8:1:2:aaaa::1").to_string(), "2001:db8:1:2::/64");

        let proxy: IpAddr = "10.0.0.1".parse().unwrap();
        let header = ["198.51.100.9, 203.0.113.5"];
        assert_eq!(ClientKey::of_request(proxy, header.into_iter(), &[proxy]), v6("203.0.113.5"), "the hop the proxy saw");
        assert_eq!(ClientKey::of_request(proxy, header.into_iter(), &[]), ClientKey::of(proxy), "not trusted: the header is ignored");
        assert_eq!(ClientKey::of_request(proxy, ["junk"].into_iter(), &[proxy]), ClientKey::of(proxy));
        assert_eq!(ClientKey::of_request(proxy, ["1.1.1.1", "203.0.113.5"].into_iter(), &[proxy]), v6("203.0.113.5"));
    }

    #[test]
    fn a_recovery_code_is_twenty_hex_digits_in_groups_of_four_and_hidden_in_debug() {
        let code = RecoveryCode::new();
        assert_eq!(code.reveal().len(), 24);
        assert!(code.reveal().split('-').all(|g| g.len() == 4 && g.chars().all(|c| c.is_ascii_hexdigit())));
        assert_ne!(code, RecoveryCode::new());
        assert!(!format!("{code:?}").contains(code.reveal()));
    }
}
