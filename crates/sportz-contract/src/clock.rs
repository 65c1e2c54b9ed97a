//! Wall-clock time as the contract writes it: `ts` fields are Unix seconds as `f64`.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch, with sub-second precision (`0.0` if the clock is before 1970).
#[must_use]
pub fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    #[test]
    fn now_is_after_2020_and_moves_forward() {
        let a = super::unix_now();
        let b = super::unix_now();
        assert!(a > 1_577_836_800.0, "{a}");
        assert!(b >= a);
    }
}
