//! Issue 34: Floor connects to a nats-server that has access control, with the credentials
//! NATS users know (`NATS_USER`/`NATS_PASSWORD`, `NATS_TOKEN`, `NATS_NKEY`, `NATS_CREDS`,
//! `NATS_CA`/`NATS_CERT`/`NATS_KEY`), and a wrong or missing one is one clear error naming what
//! was tried, never a retry loop and never a secret.

use floor_runtime::bootstrap::{self, BootstrapErrorKind};
use floor_runtime::credentials::{Auth, Credentials};
use floor_runtime::server::NatsServer;
use std::time::{Duration, Instant};

const USERS: &str = r#"
authorization {
  users = [
    { user: "floor-service", password: "service-pass-7f3a" }
  ]
}
"#;

fn user(user: &str, password: &str) -> Credentials {
    Credentials { auth: Auth::UserPassword { user: user.into(), password: password.into() }, ..Credentials::none() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn floor_connects_with_a_user_and_password_and_builds_its_backbone() {
    let nats = NatsServer::start_temp_with(USERS).expect("nats-server starts");
    let client = bootstrap::connect_with(&nats.url(), &user("floor-service", "service-pass-7f3a")).await.expect("connects");
    let backbone = bootstrap::ensure_backbone(client).await.expect("the stream and buckets are made with these credentials");
    assert!(backbone.jetstream.get_key_value(floor_events::subjects::LOBBY_BUCKET).await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_credentials_or_a_wrong_password_is_one_error_naming_what_was_tried() {
    let nats = NatsServer::start_temp_with(USERS).expect("nats-server starts");
    for (credentials, says) in [
        (Credentials::none(), "no credentials"),
        (user("floor-service", "wrong-password-91"), "user \"floor-service\""),
        (Credentials { auth: Auth::Token("not-the-token".into()), ..Credentials::none() }, "a token (NATS_TOKEN)"),
    ] {
        let started = Instant::now();
        let e = bootstrap::connect_with(&nats.url(), &credentials).await.expect_err("refused");
        assert_eq!(e.kind(), BootstrapErrorKind::Unauthorized, "{e}");
        let line = e.to_string();
        assert!(line.contains("NATS refused the credentials") && line.contains(says) && line.contains(&nats.url()), "{line}");
        assert!(!line.contains("wrong-password-91") && !line.contains("not-the-token"), "no secret in {line}");
        assert!(!line.contains('\n'), "one line: {line}");
        assert!(started.elapsed() < Duration::from_secs(5), "refused at once, not retried: {:?}", started.elapsed());
    }
}

/// Writes a CA, a server certificate for 127.0.0.1 and a client certificate with openssl.
fn certificates(dir: &std::path::Path) {
    let run = |args: &[&str]| {
        let out = std::process::Command::new("openssl").args(args).current_dir(dir).output().expect("openssl runs");
        assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    run(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=Floor test CA",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
    ]);
    // Extensions make them X.509 v3, the only version rustls takes.
    std::fs::write(dir.join("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n").expect("ext");
    std::fs::write(dir.join("client.ext"), "extendedKeyUsage=clientAuth\n").expect("ext");
    for (name, ext) in [("server", "server.ext"), ("client", "client.ext")] {
        let key = format!("{name}.key");
        let csr = format!("{name}.csr");
        let pem = format!("{name}.pem");
        run(&["req", "-newkey", "rsa:2048", "-nodes", "-subj", &format!("/CN=floor-{name}"), "-keyout", &key, "-out", &csr]);
        run(&[
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-out",
            &pem,
            "-extfile",
            ext,
        ]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn floor_connects_over_tls_with_its_client_certificate_and_is_refused_without_one() {
    let certs = tempfile::tempdir().expect("temp dir");
    certificates(certs.path());
    let path = |f: &str| certs.path().join(f);
    let config = format!(
        "tls {{\n  cert_file: {:?}\n  key_file: {:?}\n  ca_file: {:?}\n  verify: true\n}}\n",
        path("server.pem"),
        path("server.key"),
        path("ca.pem")
    );
    let nats = NatsServer::start_temp_with(&config).expect("nats-server starts with TLS");
    let tls =
        Credentials { ca: Some(path("ca.pem")), client_certificate: Some((path("client.pem"), path("client.key"))), ..Credentials::none() };
    let client = bootstrap::connect_with(&nats.url(), &tls).await.expect("connects over TLS");
    bootstrap::ensure_backbone(client).await.expect("backbone over TLS");

    let no_client_certificate = Credentials { ca: Some(path("ca.pem")), ..Credentials::none() };
    let e = bootstrap::connect_with(&nats.url(), &no_client_certificate).await.expect_err("the server verifies clients");
    assert!(e.to_string().contains("TLS with CA"), "names what was tried: {e}");
    let e = bootstrap::connect_with(&nats.url(), &Credentials::none()).await.expect_err("TLS is required");
    assert_ne!(e.kind(), BootstrapErrorKind::InvalidUrl, "{e}");
}
