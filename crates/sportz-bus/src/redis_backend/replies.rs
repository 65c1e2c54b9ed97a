//! Reading RESP replies: scalars, arrays and stream entries (`XRANGE`/`XREADGROUP`/`XAUTOCLAIM`
//! shapes, RESP2 arrays or RESP3 maps), with a protocol error naming the command for anything else.

use redis::Value;

use crate::{BusError, Result, StreamEntry};

pub(super) fn text(v: &Value) -> Option<String> {
    match v {
        Value::BulkString(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::SimpleString(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::VerbatimString { text, .. } => Some(text.clone()),
        _ => None,
    }
}

pub(super) fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        other => text(other)?.parse().ok(),
    }
}

pub(super) fn items(v: &Value) -> Option<&[Value]> {
    match v {
        Value::Array(a) | Value::Set(a) => Some(a),
        _ => None,
    }
}

pub(super) fn protocol(what: &str, v: &Value) -> BusError {
    BusError::Protocol(format!("unexpected {what} reply: {v:?}"))
}

/// `[[id, [field, value, …]], …]` → entries (entries whose fields are nil were trimmed: skipped,
/// their ids returned separately so they can be acked).
pub(super) fn parse_entries(v: &Value) -> Result<(Vec<StreamEntry>, Vec<String>)> {
    let mut out = Vec::new();
    let mut gone = Vec::new();
    for e in items(v).ok_or_else(|| protocol("stream entries", v))? {
        let parts = items(e).ok_or_else(|| protocol("stream entry", e))?;
        let id = parts
            .first()
            .and_then(text)
            .ok_or_else(|| protocol("entry id", e))?;
        match parts.get(1) {
            Some(Value::Nil) | None => gone.push(id),
            Some(fields) => {
                let f = items(fields).ok_or_else(|| protocol("entry fields", fields))?;
                let data = f
                    .chunks(2)
                    .find(|kv| kv.first().and_then(text).as_deref() == Some("data"))
                    .and_then(|kv| kv.get(1).and_then(text))
                    .ok_or_else(|| protocol("entry without a `data` field", fields))?;
                out.push(StreamEntry { id, data });
            }
        }
    }
    Ok((out, gone))
}

/// XREADGROUP reply: nil (timeout) or `[[stream, entries]]` (RESP3: a map).
pub(super) fn parse_read(v: &Value) -> Result<(Vec<StreamEntry>, Vec<String>)> {
    match v {
        Value::Nil => Ok((Vec::new(), Vec::new())),
        Value::Array(streams) => match streams.first().and_then(items) {
            Some([_, entries]) => parse_entries(entries),
            _ => Ok((Vec::new(), Vec::new())),
        },
        Value::Map(m) => m
            .first()
            .map_or(Ok((Vec::new(), Vec::new())), |(_, entries)| {
                parse_entries(entries)
            }),
        other => Err(protocol("XREADGROUP", other)),
    }
}
