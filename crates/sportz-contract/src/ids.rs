//! Ids on the wire look like `match_01JC…`, `ses_01JC…`, `evt_01JC…`: a fixed prefix and a ULID
//! (26 Crockford base-32 characters, time-ordered). They validate when parsed, so a malformed id
//! never travels past the edge that received it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use ulid::Ulid;

use crate::ContractError;

macro_rules! prefixed_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal, $kind:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(Ulid);

        impl $name {
            /// The prefix before the underscore.
            pub const PREFIX: &'static str = $prefix;

            /// A fresh id (time-ordered: later ids sort after earlier ones).
            #[must_use]
            pub fn generate() -> Self {
                Self(Ulid::new())
            }

            /// The id for a given ULID.
            #[must_use]
            pub const fn from_ulid(ulid: Ulid) -> Self {
                Self(ulid)
            }

            /// The ULID part.
            #[must_use]
            pub const fn ulid(&self) -> Ulid {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}_{}", $prefix, self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }

        impl FromStr for $name {
            type Err = ContractError;
            fn from_str(s: &str) -> Result<Self, ContractError> {
                let invalid = |reason: String| ContractError::InvalidId {
                    kind: $kind,
                    value: s.to_owned(),
                    reason,
                };
                let rest = s
                    .strip_prefix(concat!($prefix, "_"))
                    .ok_or_else(|| invalid(format!("expected the prefix `{}_`", $prefix)))?;
                if rest.len() != 26 {
                    return Err(invalid(format!(
                        "expected 26 ULID characters after `{}_`, found {}",
                        $prefix,
                        rest.len()
                    )));
                }
                Ulid::from_string(rest)
                    .map(Self)
                    .map_err(|e| invalid(format!("not a ULID: {e}")))
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }

        /// On the wire: a string, `<prefix>_` and 26 Crockford base-32 characters.
        #[cfg(feature = "openapi")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .pattern(Some(concat!("^", $prefix, "_[0-9A-HJKMNP-TV-Z]{26}$")))
                    .examples([concat!($prefix, "_01JC0000000000000000000000")])
                    .into()
            }
        }

        #[cfg(feature = "openapi")]
        impl utoipa::ToSchema for $name {}
    };
}

prefixed_id!(
    /// A match: `match_<ULID>`.
    MatchId,
    "match",
    "match"
);
prefixed_id!(
    /// One processing session of a match (each start/restart makes a new one): `ses_<ULID>`.
    SessionId,
    "ses",
    "session"
);
prefixed_id!(
    /// One detected event, unique per match; persisted idempotently on it: `evt_<ULID>`.
    EventId,
    "evt",
    "event"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_text() {
        let id = MatchId::generate();
        let text = id.to_string();
        assert!(text.starts_with("match_"), "{text}");
        assert_eq!(text.len(), "match_".len() + 26);
        assert_eq!(text.parse::<MatchId>().unwrap(), id);
    }

    #[test]
    fn later_ids_sort_after_earlier_ones() {
        let a = SessionId::from_ulid(Ulid::from_parts(1_000, 5));
        let b = SessionId::from_ulid(Ulid::from_parts(2_000, 1));
        assert!(a < b);
        assert!(a.to_string() < b.to_string());
    }

    fn check_err<T: FromStr<Err = ContractError> + fmt::Debug>(input: &str, needle: &str) {
        let err = input.parse::<T>().unwrap_err().to_string();
        assert!(
            err.contains(needle),
            "`{input}` → `{err}`, expected it to mention `{needle}`"
        );
    }

    #[test]
    fn rejects_malformed_ids_with_the_reason() {
        check_err::<MatchId>(
            "ses_01JC0000000000000000000000",
            "expected the prefix `match_`",
        );
        check_err::<MatchId>("match_123", "expected 26 ULID characters");
        check_err::<MatchId>("match_01JC00000000000000000000U", "expected 26");
        check_err::<SessionId>("ses_01JC000000000000000000000U", "not a ULID");
        check_err::<EventId>("", "expected the prefix `evt_`");
        check_err::<EventId>("5", "invalid event id `5`");
    }

    #[test]
    fn serde_uses_the_text_form() {
        let id: EventId = "evt_01JC0000000000000000000000".parse().unwrap();
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, "\"evt_01JC0000000000000000000000\"");
        let back: EventId = serde_json::from_str(&json).unwrap();
        assert_eq!(back, id);
        let err = serde_json::from_str::<EventId>("\"match_01JC0000000000000000000000\"")
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected the prefix `evt_`"), "{err}");
    }
}
