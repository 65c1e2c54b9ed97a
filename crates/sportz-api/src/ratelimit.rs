//! Per-client rate limits (GCRA via `governor`), keyed by IP address.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};

/// `burst` requests per `period`, refilled evenly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub burst: u32,
    pub period: Duration,
}

impl Rate {
    #[must_use]
    pub const fn new(burst: u32, period: Duration) -> Self {
        Self { burst, period }
    }

    /// No practical limit (tests, load tools).
    #[must_use]
    pub const fn unlimited() -> Self {
        Self {
            burst: u32::MAX,
            period: Duration::from_secs(1),
        }
    }
}

pub struct Limiter {
    inner: Option<DefaultKeyedRateLimiter<IpAddr>>,
    clock: DefaultClock,
}

impl std::fmt::Debug for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limiter")
            .field("enabled", &self.inner.is_some())
            .finish()
    }
}

impl Limiter {
    #[must_use]
    pub fn new(rate: Rate) -> Self {
        let inner = (rate.burst != u32::MAX).then(|| {
            let burst = NonZeroU32::new(rate.burst.max(1)).unwrap_or(NonZeroU32::MIN);
            let per_cell = rate.period / burst.get();
            let quota = Quota::with_period(per_cell.max(Duration::from_nanos(1)))
                .unwrap_or_else(|| Quota::per_second(burst))
                .allow_burst(burst);
            DefaultKeyedRateLimiter::keyed(quota)
        });
        Self {
            inner,
            clock: DefaultClock::default(),
        }
    }

    /// `Ok` or the seconds to wait (at least 1).
    ///
    /// # Errors
    /// The `Retry-After` seconds when the client is over its rate.
    pub fn check(&self, ip: IpAddr) -> Result<(), u64> {
        let Some(l) = &self.inner else { return Ok(()) };
        l.check_key(&ip).map_err(|not_until| {
            let wait = not_until.wait_time_from(self.clock.now());
            wait.as_secs() + u64::from(wait.subsec_nanos() > 0).max(u64::from(wait.is_zero()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_refused_with_a_retry_time() {
        let l = Limiter::new(Rate::new(5, Duration::from_secs(2)));
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        for _ in 0..5 {
            assert!(l.check(ip).is_ok());
        }
        let wait = l.check(ip).unwrap_err();
        assert!((1..=2).contains(&wait), "{wait}");
        // another client is unaffected
        assert!(l.check("10.0.0.2".parse().unwrap()).is_ok());
        assert!(Limiter::new(Rate::unlimited()).check(ip).is_ok());
    }
}
