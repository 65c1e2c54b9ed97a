//! Helpers for the end-to-end tests in `tests/tests/`: finding the built `sportz` binary,
//! running it as a user would, and a REST client of a running one ([`Api`]).

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The `sportz` binary of this build (`target/<profile>/sportz`), built by `cargo build --bins`
/// (the README test command does that before running tests).
///
/// # Panics
/// When the binary is missing, with the command that builds it.
#[must_use]
pub fn sportz_bin() -> PathBuf {
    // test executables live in target/<profile>/deps/
    let exe = std::env::current_exe().expect("the test binary knows its path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test binaries live in target/<profile>/deps");
    let bin = profile_dir.join(format!("sportz{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: build it first with `cargo build -p sportz`",
        bin.display()
    );
    bin
}

/// Runs `sportz` with arguments and returns its output.
///
/// # Panics
/// When the process cannot be started.
#[must_use]
pub fn run_sportz(args: &[&str]) -> Output {
    Command::new(sportz_bin())
        .args(args)
        .env_remove("DISPLAY")
        .output()
        .expect("sportz starts")
}

/// A REST client of a `sportz` serving on `127.0.0.1:port`, with the operator token.
#[derive(Debug, Clone)]
pub struct Api {
    pub http: reqwest::Client,
    pub base: String,
    pub token: String,
}

impl Api {
    #[must_use]
    pub fn new(port: u16, token: &str) -> Self {
        Self {
            http: reqwest::Client::new(),
            base: format!("http://127.0.0.1:{port}"),
            token: token.to_owned(),
        }
    }

    /// Waits until `/health` answers 2xx.
    ///
    /// # Panics
    /// After `secs` seconds without.
    pub async fn wait_healthy(&self, secs: u64) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while !self
            .http
            .get(format!("{}/health", self.base))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            assert!(
                Instant::now() < deadline,
                "{} never became healthy",
                self.base
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// `GET path` → its JSON body.
    ///
    /// # Panics
    /// When the request fails or the body is not JSON.
    pub async fn get(&self, path: &str) -> Value {
        self.http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {path}: {e}"))
            .json()
            .await
            .unwrap_or_else(|e| panic!("GET {path}: not JSON: {e}"))
    }

    /// `POST path` with the operator token (and `body` as JSON) → (status, JSON body or null).
    ///
    /// # Panics
    /// When the request fails.
    pub async fn post(&self, path: &str, body: Option<&Value>) -> (u16, Value) {
        self.send(reqwest::Method::POST, path, body).await
    }

    /// `method path` with the operator token (and `body` as JSON) → (status, JSON body or null).
    ///
    /// # Panics
    /// When the request fails.
    pub async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let mut req = self
            .http
            .request(method.clone(), format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(b) = body {
            req = req.json(b);
        }
        let r = req
            .send()
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let code = r.status().as_u16();
        (code, r.json().await.unwrap_or(Value::Null))
    }
}
