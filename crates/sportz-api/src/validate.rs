//! Reading JSON bodies field by field, so a bad request names every failing field.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use sportz_contract::worker::VideoSource;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::error::ApiError;

/// A JSON object body being validated; errors accumulate per field.
#[derive(Debug)]
pub struct Body {
    obj: Map<String, Value>,
    errors: BTreeMap<String, String>,
}

/// `Some(None)` = explicitly null; `None` = absent.
pub type Patch<T> = Option<Option<T>>;

impl Body {
    /// # Errors
    /// When the body is not a JSON object.
    pub fn new(v: Value) -> Result<Self, ApiError> {
        match v {
            Value::Object(obj) => Ok(Self {
                obj,
                errors: BTreeMap::new(),
            }),
            other => Err(ApiError::BadRequest(format!(
                "expected a JSON object, got {}",
                kind(&other)
            ))),
        }
    }

    fn fail(&mut self, field: &str, msg: impl Into<String>) {
        self.errors
            .entry(field.to_owned())
            .or_insert_with(|| msg.into());
    }

    fn raw(&self, field: &str) -> Option<&Value> {
        self.obj.get(field)
    }

    /// A string of 1..=max characters (trimmed); absent or null → None.
    pub fn opt_str(&mut self, field: &str, max: usize) -> Patch<String> {
        match self.raw(field).cloned() {
            None => None,
            Some(Value::Null) => Some(None),
            Some(Value::String(s)) => {
                let t = s.trim().to_owned();
                if t.is_empty() {
                    self.fail(field, "must not be empty");
                    None
                } else if t.chars().count() > max {
                    self.fail(field, format!("must be at most {max} characters"));
                    None
                } else {
                    Some(Some(t))
                }
            }
            Some(other) => {
                self.fail(field, format!("expected a string, got {}", kind(&other)));
                None
            }
        }
    }

    /// A required string of 1..=max characters.
    pub fn req_str(&mut self, field: &str, max: usize) -> Option<String> {
        match self.opt_str(field, max) {
            Some(Some(s)) => Some(s),
            None if self.errors.contains_key(field) => None,
            _ => {
                self.fail(field, "is required");
                None
            }
        }
    }

    /// An unsigned integer in `range`.
    pub fn opt_u32(&mut self, field: &str, range: std::ops::RangeInclusive<u32>) -> Patch<u32> {
        match self.raw(field).cloned() {
            None => None,
            Some(Value::Null) => Some(None),
            Some(Value::Number(n)) => match n.as_u64().and_then(|x| u32::try_from(x).ok()) {
                Some(x) if range.contains(&x) => Some(Some(x)),
                _ => {
                    self.fail(
                        field,
                        format!(
                            "expected an integer from {} to {}",
                            range.start(),
                            range.end()
                        ),
                    );
                    None
                }
            },
            Some(other) => {
                self.fail(field, format!("expected an integer, got {}", kind(&other)));
                None
            }
        }
    }

    pub fn req_u32(&mut self, field: &str, range: std::ops::RangeInclusive<u32>) -> Option<u32> {
        match self.opt_u32(field, range) {
            Some(Some(x)) => Some(x),
            None if self.errors.contains_key(field) => None,
            _ => {
                self.fail(field, "is required");
                None
            }
        }
    }

    /// A finite number in `range`.
    pub fn opt_f64(&mut self, field: &str, range: std::ops::RangeInclusive<f64>) -> Patch<f64> {
        match self.raw(field).cloned() {
            None => None,
            Some(Value::Null) => Some(None),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(x) if range.contains(&x) => Some(Some(x)),
                _ => {
                    self.fail(
                        field,
                        format!(
                            "expected a number from {} to {}",
                            range.start(),
                            range.end()
                        ),
                    );
                    None
                }
            },
            Some(other) => {
                self.fail(field, format!("expected a number, got {}", kind(&other)));
                None
            }
        }
    }

    /// An RFC 3339 time.
    pub fn opt_time(&mut self, field: &str) -> Patch<OffsetDateTime> {
        match self.opt_str(field, 64)? {
            None => Some(None),
            Some(s) => match OffsetDateTime::parse(&s, &Rfc3339) {
                Ok(t) => Some(Some(t)),
                Err(_) => {
                    self.fail(
                        field,
                        "expected an RFC 3339 time such as 2026-11-30T15:00:00Z",
                    );
                    None
                }
            },
        }
    }

    /// Any JSON object.
    pub fn opt_object(&mut self, field: &str) -> Patch<Value> {
        match self.raw(field).cloned() {
            None => None,
            Some(Value::Null) => Some(None),
            Some(v @ Value::Object(_)) => Some(Some(v)),
            Some(other) => {
                self.fail(field, format!("expected an object, got {}", kind(&other)));
                None
            }
        }
    }

    /// A list of short strings.
    pub fn opt_strings(
        &mut self,
        field: &str,
        max_items: usize,
        max_len: usize,
    ) -> Option<Vec<String>> {
        match self.raw(field).cloned() {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => {
                let mut out = Vec::new();
                for item in items {
                    match item {
                        Value::String(s)
                            if !s.trim().is_empty() && s.chars().count() <= max_len =>
                        {
                            out.push(s.trim().to_owned());
                        }
                        _ => {
                            self.fail(
                                field,
                                format!("expected strings of 1 to {max_len} characters"),
                            );
                            return None;
                        }
                    }
                }
                if out.len() > max_items {
                    self.fail(field, format!("at most {max_items} items"));
                    return None;
                }
                Some(out)
            }
            Some(other) => {
                self.fail(
                    field,
                    format!("expected a list of strings, got {}", kind(&other)),
                );
                None
            }
        }
    }

    /// `{type, value}` as the contract's video source.
    pub fn opt_video_source(&mut self, field: &str) -> Patch<VideoSource> {
        match self.raw(field).cloned() {
            None => None,
            Some(Value::Null) => Some(None),
            Some(v) => match serde_json::from_value::<VideoSource>(v) {
                Ok(src) => match check_source_shape(&src) {
                    Ok(()) => Some(Some(src)),
                    Err(m) => {
                        self.fail(field, m);
                        None
                    }
                },
                Err(_) => {
                    self.fail(
                        field,
                        r#"expected {"type": "file"|"http"|"rtmp"|"rtsp"|"srt"|"device", "value": "<path or URL>"} or {"type": "synthetic", "value": <seed>}"#,
                    );
                    None
                }
            },
        }
    }

    /// Ends validation: every error at once, naming the fields.
    ///
    /// # Errors
    /// [`ApiError::Validation`] when any field failed.
    pub fn finish(self) -> Result<(), ApiError> {
        if self.errors.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = self.errors.keys().map(String::as_str).collect();
        Err(ApiError::Validation {
            message: format!("invalid fields: {}", names.join(", ")),
            fields: self.errors,
        })
    }
}

fn check_source_shape(src: &VideoSource) -> Result<(), String> {
    let (value, prefixes): (&str, &[&str]) = match src {
        VideoSource::File(p) => (p, &[]),
        VideoSource::Device(p) => (p, &["/dev/"]),
        VideoSource::Http(u) => (u, &["http://", "https://"]),
        VideoSource::Rtmp(u) => (u, &["rtmp://", "rtmps://"]),
        VideoSource::Rtsp(u) => (u, &["rtsp://", "rtsps://"]),
        VideoSource::Srt(u) => (u, &["srt://"]),
        VideoSource::Synthetic(_) => return Ok(()),
    };
    if value.trim().is_empty() {
        return Err("the source value must not be empty".to_owned());
    }
    if value.len() > 2048 {
        return Err("the source value must be at most 2048 characters".to_owned());
    }
    if !prefixes.is_empty() && !prefixes.iter().any(|p| value.starts_with(p)) {
        return Err(format!(
            "expected a value starting with {}",
            prefixes.join(" or ")
        ));
    }
    Ok(())
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(v: Value, f: impl FnOnce(&mut Body)) -> BTreeMap<String, String> {
        let mut b = Body::new(v).unwrap();
        f(&mut b);
        match b.finish() {
            Ok(()) => BTreeMap::new(),
            Err(ApiError::Validation { fields, .. }) => fields,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn numbers_are_finite_and_in_range() {
        let f = fields(json!({"a": -1, "b": "3", "c": 2.5, "d": null}), |b| {
            assert_eq!(b.opt_f64("a", 0.0..=10.0), None);
            assert_eq!(b.opt_f64("b", 0.0..=10.0), None);
            assert_eq!(b.opt_f64("c", 0.0..=10.0), Some(Some(2.5)));
            assert_eq!(b.opt_f64("d", 0.0..=10.0), Some(None));
            assert_eq!(b.opt_f64("e", 0.0..=10.0), None);
        });
        assert_eq!(f["a"], "expected a number from 0 to 10");
        assert_eq!(f["b"], "expected a number, got a string");
        assert_eq!(f.len(), 2);
    }

    #[test]
    fn every_failing_field_is_named() {
        let f = fields(
            json!({"homeTeam": "", "awayTeam": 5, "sequence": 0, "startTime": "tomorrow"}),
            |b| {
                b.req_str("homeTeam", 100);
                b.req_str("awayTeam", 100);
                b.req_str("name", 100);
                b.req_u32("sequence", 1..=1_000_000);
                b.opt_time("startTime");
            },
        );
        assert_eq!(f["homeTeam"], "must not be empty");
        assert_eq!(f["awayTeam"], "expected a string, got a number");
        assert_eq!(f["name"], "is required");
        assert_eq!(f["sequence"], "expected an integer from 1 to 1000000");
        assert!(f["startTime"].contains("RFC 3339"));
    }

    #[test]
    fn video_sources_are_checked() {
        let bad = [
            json!({"type": "http", "value": "ftp://x"}),
            json!({"type": "rtmp", "value": ""}),
            json!({"type": "youtube", "value": "x"}),
            json!("file.mp4"),
        ];
        for v in bad {
            let f = fields(json!({"videoSource": v}), |b| {
                b.opt_video_source("videoSource");
            });
            assert!(f.contains_key("videoSource"), "{f:?}");
        }
        let f = fields(
            json!({"videoSource": {"type": "synthetic", "value": 7}}),
            |b| {
                assert_eq!(
                    b.opt_video_source("videoSource"),
                    Some(Some(VideoSource::Synthetic(7)))
                );
            },
        );
        assert!(f.is_empty());
    }

    #[test]
    fn non_objects_are_refused() {
        let e = Body::new(json!([1])).unwrap_err();
        assert!(e.to_string().contains("expected a JSON object, got a list"));
    }
}
