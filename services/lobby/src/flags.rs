//! The HTTP server's command-line flags (`floor run`, `floor lobby`), defined beside the
//! settings they make ([`crate::server::HttpSettings`]), so the binary only flattens them.

/// How the lobby serves HTTP (issue 34; docs/security.md, "HTTP: lobby and console"): flags to
/// flatten into `floor run` and `floor lobby` (`#[command(flatten)]`), handed to
/// `PlatformConfig::http_server` with [`HttpArgs::settings`].
#[derive(Debug, Clone, clap::Args)]
pub struct HttpArgs {
    /// Serve HTTPS with this certificate chain (PEM, leaf first); needs --tls-key. The
    /// console's session cookie is then `Secure`.
    #[arg(long, env = "FLOOR_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, env = "FLOOR_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
    /// A reverse proxy in front of the lobby (its address; repeat or comma-separate): the
    /// console's sign-in guard takes the client from the last `X-Forwarded-For` address of its
    /// requests. Without one the header is ignored.
    #[arg(long, env = "FLOOR_TRUSTED_PROXY", value_delimiter = ',')]
    pub trusted_proxy: Vec<std::net::IpAddr>,
    /// HTTP connections served at once; more wait to be accepted.
    #[arg(long, env = "FLOOR_HTTP_MAX_CONNECTIONS", default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub http_max_connections: u32,
}

impl HttpArgs {
    /// The lobby's HTTP settings: these, and the defaults for the rest.
    pub fn settings(&self) -> crate::server::HttpSettings {
        let tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some(crate::server::TlsFiles { cert: cert.clone(), key: key.clone() }),
            _ => None,
        };
        crate::server::HttpSettings {
            trusted_proxies: self.trusted_proxy.clone(),
            max_connections: self.http_max_connections as usize,
            tls,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn the_http_options_parse_into_the_lobbys_settings() {
        #[derive(Debug, Parser)]
        struct Lobby {
            #[command(flatten)]
            http: HttpArgs,
        }
        let parsed = Lobby::try_parse_from(["lobby", "--tls-cert", "c.pem", "--tls-key", "k.pem", "--trusted-proxy", "10.0.0.1,::1"])
            .expect("TLS and proxies");
        let settings = parsed.http.settings();
        assert_eq!(settings.tls.map(|t| (t.cert, t.key)), Some(("c.pem".into(), "k.pem".into())));
        assert_eq!(settings.trusted_proxies, ["10.0.0.1".parse::<std::net::IpAddr>().unwrap(), "::1".parse().unwrap()]);
        assert_eq!(settings.max_connections, 10_000);
        let plain = Lobby::try_parse_from(["lobby"]).expect("no options").http.settings();
        assert_eq!(plain, crate::server::HttpSettings::default());
        assert!(Lobby::try_parse_from(["lobby", "--tls-cert", "c.pem"]).is_err(), "a certificate needs its key");
        assert!(Lobby::try_parse_from(["lobby", "--http-max-connections", "0"]).is_err());
        assert!(Lobby::try_parse_from(["lobby", "--trusted-proxy", "proxy.local"]).is_err(), "an address, not a name");
    }
}
