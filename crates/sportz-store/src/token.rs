//! API token secrets. A secret is 32 random bytes (256 bits) shown once as `sportz_<base64url>`;
//! only its SHA-256 is stored. A slow password hash (argon2) buys nothing for secrets this long:
//! nobody can enumerate 2^256 candidates, so one fast hash is enough and verification stays cheap.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use crate::error::{Result, StoreError};

const PREFIX: &str = "sportz_";

/// A fresh secret.
pub(crate) fn generate() -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| {
        tracing::error!("no randomness for an API token: {e}");
        StoreError::Unavailable("the system random source failed".to_owned())
    })?;
    Ok(format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes)))
}

/// Lowercase hex SHA-256 of `text`.
pub(crate) fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_long_distinct_and_hash_to_hex() {
        let a = generate().unwrap();
        let b = generate().unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with(PREFIX));
        assert_eq!(a.len(), PREFIX.len() + 43);
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
