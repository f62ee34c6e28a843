//! How a Floor process proves who it is to NATS (issue 34), from the variables NATS users
//! know: one way of authenticating and, on its own or with it, TLS.
//!
//! | variable | what |
//! |---|---|
//! | `NATS_CREDS` | a `.creds` file (JWT and NKey seed, as `nsc` writes it) |
//! | `NATS_NKEY` | an NKey seed file (or the seed itself, `SU…`) |
//! | `NATS_USER` + `NATS_PASSWORD` | user and password |
//! | `NATS_TOKEN` | a token |
//! | `NATS_CA` | the CA that signed the server's certificate (TLS required then) |
//! | `NATS_CERT` + `NATS_KEY` | this process's client certificate and key (TLS) |
//!
//! More than one way of authenticating, half a pair or an empty value is refused before any
//! connection is tried, with the variable named: a process must never fall back to another
//! identity than the one its operator gave it. Pure: the lookup is given.

use crate::roles::Role;
use async_nats::ConnectOptions;
use std::path::{Path, PathBuf};

/// How to authenticate.
#[derive(Clone, PartialEq, Eq)]
pub enum Auth {
    /// No credentials: a server without authorization.
    None,
    /// `NATS_USER` and `NATS_PASSWORD`.
    UserPassword {
        /// The user.
        user: String,
        /// The password (never printed).
        password: String,
    },
    /// `NATS_TOKEN` (never printed).
    Token(String),
    /// `NATS_NKEY`: the seed (never printed) and where it came from.
    NKey {
        /// The seed.
        seed: String,
        /// The file, or `NATS_NKEY` itself.
        from: String,
    },
    /// `NATS_CREDS`: a `.creds` file.
    CredsFile(PathBuf),
}

/// One process's credentials for NATS.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    /// How it authenticates.
    pub auth: Auth,
    /// The CA that signed the server's certificate (TLS then required).
    pub ca: Option<PathBuf>,
    /// Its own certificate and key (TLS then required).
    pub client_certificate: Option<(PathBuf, PathBuf)>,
}

impl std::fmt::Debug for Auth {
    /// Never a secret: the user, the seed's source, the file.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::None => f.write_str("None"),
            Self::UserPassword { user, .. } => write!(f, "UserPassword({user:?})"),
            Self::Token(_) => f.write_str("Token"),
            Self::NKey { from, .. } => write!(f, "NKey({from})"),
            Self::CredsFile(path) => write!(f, "CredsFile({})", path.display()),
        }
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

/// Why the credentials given cannot be used (no connection was tried).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CredentialsError(pub String);

impl Credentials {
    /// No credentials, no TLS.
    pub fn none() -> Self {
        Self { auth: Auth::None, ca: None, client_certificate: None }
    }

    /// The credentials the environment gives.
    ///
    /// # Errors
    /// More than one way of authenticating, half a pair, an empty value, an unreadable seed.
    pub fn from_env() -> Result<Self, CredentialsError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// The credentials `lookup` gives for the variables above (tests pass a map).
    ///
    /// # Errors
    /// As [`Credentials::from_env`].
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, CredentialsError> {
        let get = |name: &str| -> Result<Option<String>, CredentialsError> {
            match lookup(name) {
                None => Ok(None),
                Some(v) if v.trim().is_empty() => Err(CredentialsError(format!("{name} is set but empty"))),
                Some(v) => Ok(Some(v)),
            }
        };
        let (creds, nkey, user, password, token) =
            (get("NATS_CREDS")?, get("NATS_NKEY")?, get("NATS_USER")?, get("NATS_PASSWORD")?, get("NATS_TOKEN")?);
        let given: Vec<&str> = [
            creds.as_ref().map(|_| "NATS_CREDS"),
            nkey.as_ref().map(|_| "NATS_NKEY"),
            (user.is_some() || password.is_some()).then_some("NATS_USER/NATS_PASSWORD"),
            token.as_ref().map(|_| "NATS_TOKEN"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if given.len() > 1 {
            return Err(CredentialsError(format!("choose one way to authenticate to NATS, not {}", given.join(" and "))));
        }
        let auth = match (creds, nkey, user, password, token) {
            (Some(path), ..) => Auth::CredsFile(PathBuf::from(path)),
            (_, Some(nkey), ..) => nkey_auth(&nkey)?,
            (_, _, Some(user), Some(password), _) => Auth::UserPassword { user, password },
            (_, _, Some(_), None, _) => return Err(CredentialsError("NATS_USER is set without NATS_PASSWORD".into())),
            (_, _, None, Some(_), _) => return Err(CredentialsError("NATS_PASSWORD is set without NATS_USER".into())),
            (_, _, _, _, Some(token)) => Auth::Token(token),
            _ => Auth::None,
        };
        let client_certificate = match (get("NATS_CERT")?, get("NATS_KEY")?) {
            (Some(cert), Some(key)) => Some((PathBuf::from(cert), PathBuf::from(key))),
            (None, None) => None,
            (Some(_), None) => return Err(CredentialsError("NATS_CERT is set without NATS_KEY".into())),
            (None, Some(_)) => return Err(CredentialsError("NATS_KEY is set without NATS_CERT".into())),
        };
        Ok(Self { auth, ca: get("NATS_CA")?.map(PathBuf::from), client_certificate })
    }

    /// What these credentials are, for an error line: never a secret.
    pub fn describe(&self) -> String {
        let auth = match &self.auth {
            Auth::None => "no credentials".to_owned(),
            Auth::UserPassword { user, .. } => format!("user {user:?} with a password (NATS_USER/NATS_PASSWORD)"),
            Auth::Token(_) => "a token (NATS_TOKEN)".to_owned(),
            Auth::NKey { from, .. } => format!("the NKey seed of {from}"),
            Auth::CredsFile(path) => format!("the credentials file {} (NATS_CREDS)", path.display()),
        };
        let tls = match (&self.ca, &self.client_certificate) {
            (None, None) => String::new(),
            (Some(ca), None) => format!(", TLS with CA {}", ca.display()),
            (ca, Some((cert, _))) => {
                let ca = ca.as_ref().map(|c| format!("CA {}, ", c.display())).unwrap_or_default();
                format!(", TLS with {ca}client certificate {}", cert.display())
            }
        };
        format!("{auth}{tls}")
    }

    /// Whether TLS is asked for.
    pub fn tls(&self) -> bool {
        self.ca.is_some() || self.client_certificate.is_some()
    }

    /// `options` with these credentials.
    ///
    /// # Errors
    /// A `.creds` file that cannot be read or parsed.
    pub async fn apply(&self, options: ConnectOptions) -> Result<ConnectOptions, CredentialsError> {
        let mut options = match &self.auth {
            Auth::None => options,
            Auth::UserPassword { user, password } => options.user_and_password(user.clone(), password.clone()),
            Auth::Token(token) => options.token(token.clone()),
            Auth::NKey { seed, .. } => options.nkey(seed.clone()),
            Auth::CredsFile(path) => {
                options.credentials_file(path).await.map_err(|e| CredentialsError(format!("NATS_CREDS {}: {e}", path.display())))?
            }
        };
        if let Some(ca) = &self.ca {
            options = options.add_root_certificates(ca.clone());
        }
        if let Some((cert, key)) = &self.client_certificate {
            options = options.add_client_certificate(cert.clone(), key.clone());
        }
        if self.tls() {
            options = options.require_tls(true);
        }
        Ok(options)
    }
}

/// `NATS_NKEY`: a seed (`SU…`, a user seed) or the file holding one.
fn nkey_auth(value: &str) -> Result<Auth, CredentialsError> {
    let value = value.trim();
    if value.starts_with("SU") && !value.contains('/') {
        return Ok(Auth::NKey { seed: value.to_owned(), from: "NATS_NKEY".into() });
    }
    let text = std::fs::read_to_string(value).map_err(|e| CredentialsError(format!("NATS_NKEY {value}: {e}")))?;
    let seed = text.lines().map(str::trim).find(|l| l.starts_with("SU"));
    match seed {
        Some(seed) => Ok(Auth::NKey { seed: seed.to_owned(), from: format!("{value} (NATS_NKEY)") }),
        None => Err(CredentialsError(format!("NATS_NKEY {value}: no user seed (SU…) in the file"))),
    }
}

/// Where a data directory keeps the credentials of its embedded server's roles (mode 0600):
/// `<data>/credentials/<role>.env`, lines `NATS_USER=…` and `NATS_PASSWORD=…`.
pub fn role_file(data_dir: &Path, role: Role) -> PathBuf {
    data_dir.join("credentials").join(format!("{}.env", role.name()))
}

impl Credentials {
    /// The credentials of a `KEY=VALUE` file (`#` comments and blank lines skipped), read as
    /// the environment is.
    ///
    /// # Errors
    /// The file cannot be read, or what it says cannot be used.
    pub fn from_env_file(path: &Path) -> Result<Self, CredentialsError> {
        let text = std::fs::read_to_string(path).map_err(|e| CredentialsError(format!("{}: {e}", path.display())))?;
        let vars: std::collections::HashMap<String, String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter_map(|l| l.split_once('=').map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned())))
            .collect();
        Self::from_lookup(|name| vars.get(name).cloned()).map_err(|e| CredentialsError(format!("{}: {e}", path.display())))
    }

    /// Whether the environment names credentials of its own (then they are used, whatever a
    /// data directory holds).
    pub fn in_env() -> bool {
        ["NATS_CREDS", "NATS_NKEY", "NATS_USER", "NATS_PASSWORD", "NATS_TOKEN", "NATS_CA", "NATS_CERT", "NATS_KEY"]
            .iter()
            .any(|v| std::env::var_os(v).is_some())
    }

    /// The credentials a process of `role` uses to join the embedded server of `data_dir`: the
    /// environment's when it names any, otherwise the directory's file for the role (none when
    /// the server runs without authorization, `--insecure-nats`).
    ///
    /// # Errors
    /// As [`Credentials::from_env`] and [`Credentials::from_env_file`].
    pub fn for_role(data_dir: &Path, role: Role) -> Result<Self, CredentialsError> {
        if Self::in_env() {
            return Self::from_env();
        }
        let file = role_file(data_dir, role);
        if file.exists() {
            Self::from_env_file(&file)
        } else {
            Ok(Self::none())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn from(vars: &[(&str, &str)]) -> Result<Credentials, CredentialsError> {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        Credentials::from_lookup(|name| vars.get(name).cloned())
    }

    #[test]
    fn each_way_of_authenticating_is_read_and_described_without_its_secret() {
        assert_eq!(from(&[]).unwrap(), Credentials::none());
        let user = from(&[("NATS_USER", "director"), ("NATS_PASSWORD", "s3cret-pw")]).unwrap();
        assert_eq!(user.auth, Auth::UserPassword { user: "director".into(), password: "s3cret-pw".into() });
        assert!(!user.describe().contains("s3cret") && user.describe().contains("director"), "{}", user.describe());
        let token = from(&[("NATS_TOKEN", "t0ken-value")]).unwrap();
        assert!(!token.describe().contains("t0ken"));
        let seed = "SUACSSL3UAHUDXKFSNVUZRF5UHPMWZ6BFDTJ7M6USDXIEDNPPQYYYCU3VY";
        let nkey = from(&[("NATS_NKEY", seed)]).unwrap();
        assert!(matches!(&nkey.auth, Auth::NKey { seed: s, .. } if s == seed));
        assert!(!format!("{nkey:?}").contains(seed), "Debug never prints the seed");
        let creds = from(&[("NATS_CREDS", "/etc/floor/director.creds")]).unwrap();
        assert_eq!(creds.auth, Auth::CredsFile("/etc/floor/director.creds".into()));
        let tls = from(&[("NATS_CA", "/ca.pem"), ("NATS_CERT", "/c.pem"), ("NATS_KEY", "/k.pem")]).unwrap();
        assert!(tls.tls() && tls.describe().contains("client certificate /c.pem"), "{}", tls.describe());
    }

    #[test]
    fn two_identities_half_a_pair_or_an_empty_value_are_refused_naming_the_variable() {
        let refused = |vars: &[(&str, &str)], says: &str| {
            let e = from(vars).expect_err("refused");
            assert!(e.0.contains(says), "{e} should name {says}");
        };
        refused(&[("NATS_TOKEN", "a"), ("NATS_CREDS", "/x.creds")], "NATS_CREDS and NATS_TOKEN");
        refused(&[("NATS_USER", "a")], "without NATS_PASSWORD");
        refused(&[("NATS_PASSWORD", "a")], "without NATS_USER");
        refused(&[("NATS_CERT", "/c.pem")], "without NATS_KEY");
        refused(&[("NATS_TOKEN", "  ")], "NATS_TOKEN is set but empty");
        refused(&[("NATS_NKEY", "/nonexistent/seed.nk")], "NATS_NKEY /nonexistent/seed.nk");
    }
}
