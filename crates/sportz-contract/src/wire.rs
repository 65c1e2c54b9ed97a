//! Serde helpers for the wire formats.
//!
//! Pixel coordinates are `f64` in memory; on the wire a whole number is written as a JSON integer
//! (`836`, as the seed writes bounding boxes) and anything else as a float. Input accepts both.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

fn write<S: Serializer>(v: f64, s: S) -> Result<S::Ok, S::Error> {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        // exact: |v| < 2^53 and whole
        s.serialize_i64(v as i64)
    } else {
        s.serialize_f64(v)
    }
}

struct Px(f64);
impl Serialize for Px {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        write(self.0, s)
    }
}

pub(crate) fn scalar<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    write(*v, s)
}

pub(crate) fn bbox<S: Serializer>(v: &[f64; 4], s: S) -> Result<S::Ok, S::Error> {
    [Px(v[0]), Px(v[1]), Px(v[2]), Px(v[3])].serialize(s)
}

/// A key that must be present but may be `null` (serde would otherwise accept a missing `Option`
/// field as `None`, and "none renamed or dropped" could not be checked).
pub(crate) fn required_nullable<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d)
}
