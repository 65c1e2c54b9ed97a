//! The fits of stored calibrations, so `GET /matches/{id}/calibration` (which needs no token on
//! a LAN) does not refit — RANSAC over up to 64 pairs — on every read.

use sportz_contract::MatchId;
use sportz_contract::worker::PointPair;
use sportz_vision::pitch::ReprojectionError;

/// The fits of stored calibrations by match, each valid while the match's pairs are the ones it
/// was computed from; at most [`FitCache::CAP`] entries (emptied when full: refitting is cheap
/// next to a read storm, and the cache cannot grow with the number of matches).
#[derive(Debug, Default)]
pub struct FitCache {
    fits: std::sync::Mutex<FitMap>,
}

type FitMap = std::collections::HashMap<MatchId, (Vec<PointPair>, Option<ReprojectionError>)>;

impl FitCache {
    pub const CAP: usize = 1024;

    /// The fit of `pairs` for match `id`, when it was computed from these very pairs.
    #[must_use]
    pub fn get(&self, id: MatchId, pairs: &[PointPair]) -> Option<Option<ReprojectionError>> {
        let fits = self
            .fits
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        fits.get(&id).filter(|(p, _)| p == pairs).map(|&(_, f)| f)
    }

    pub fn put(&self, id: MatchId, pairs: &[PointPair], fit: Option<ReprojectionError>) {
        let mut fits = self
            .fits
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if fits.len() >= Self::CAP && !fits.contains_key(&id) {
            fits.clear();
        }
        fits.insert(id, (pairs.to_vec(), fit));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sportz_contract::{PitchPoint, PixelPoint};

    fn pair(px: f64, py: f64, x: f64, y: f64) -> PointPair {
        PointPair {
            pixel: PixelPoint { x: px, y: py },
            pitch: PitchPoint { x, y },
        }
    }

    #[test]
    fn a_fit_is_kept_while_the_pairs_are_the_same() {
        let cache = FitCache::default();
        let m = MatchId::generate();
        let pairs = vec![
            pair(100.0, 600.0, 0.0, 68.0),
            pair(1180.0, 600.0, 105.0, 68.0),
            pair(900.0, 200.0, 105.0, 0.0),
            pair(380.0, 200.0, 0.0, 0.0),
        ];
        assert_eq!(cache.get(m, &pairs), None, "nothing fitted yet");
        let fit = crate::service::calibration::check(&pairs).unwrap();
        cache.put(m, &pairs, Some(fit));
        assert_eq!(cache.get(m, &pairs), Some(Some(fit)));
        // other pairs (changed by this or another API instance): not this fit
        let mut moved = pairs.clone();
        moved[0].pixel.x += 5.0;
        assert_eq!(cache.get(m, &moved), None);
        assert_eq!(cache.get(MatchId::generate(), &pairs), None);
        // bounded: a full cache starts again rather than growing
        for _ in 0..FitCache::CAP {
            cache.put(MatchId::generate(), &pairs, None);
        }
        assert_eq!(cache.get(m, &pairs), None, "emptied when full");
    }
}
