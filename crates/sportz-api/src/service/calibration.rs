//! The pitch calibration: the point pairs a user clicked (pixel ↔ metres on a 105×68 pitch). A
//! calibration is stored only when it fits: 4 to [`MAX_PAIRS`] pairs, on the pitch (5 m margin),
//! not degenerate. Fitting (RANSAC) runs on a blocking thread, off the async runtime.

use sportz_contract::worker::PointPair;
use sportz_contract::{MatchId, PITCH_LENGTH_M, PITCH_WIDTH_M};
use sportz_store::Match;

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// The most pairs a calibration may have: a user clicks a handful of landmarks, and the fit's cost
/// grows with the pairs (a 1 MiB body could otherwise carry ~10,000 of them).
pub const MAX_PAIRS: usize = 64;

/// Fits the pairs; the reprojection error on success, the reason on failure.
///
/// # Errors
/// The fitter's reason (too few pairs, collinear points, …).
pub fn fit(pairs: &[PointPair]) -> Result<sportz_vision::pitch::ReprojectionError, String> {
    sportz_vision::pitch::Calibration::fit_contract(pairs)
        .map(|c| c.error)
        .map_err(|e| e.to_string())
}

/// How well a stored calibration fits: `None` with fewer than 4 pairs or a degenerate set.
#[must_use]
pub fn reprojection_error(pairs: &[PointPair]) -> Option<sportz_vision::pitch::ReprojectionError> {
    if pairs.len() >= 4 {
        fit(pairs).ok()
    } else {
        None
    }
}

/// Checks a calibration as [`set_calibration`] does, without storing it.
///
/// # Errors
/// A validation error on `pairs` (or `pairs[i].pitch`) that says what was expected.
pub fn check(pairs: &[PointPair]) -> ApiResult<()> {
    if pairs.len() < 4 {
        return Err(ApiError::field(
            "pairs",
            format!("need at least 4 point pairs, got {}", pairs.len()),
        ));
    }
    if pairs.len() > MAX_PAIRS {
        return Err(ApiError::field(
            "pairs",
            format!(
                "expected at most {MAX_PAIRS} point pairs, got {}",
                pairs.len()
            ),
        ));
    }
    let margin = 5.0;
    if let Some((i, _)) = pairs.iter().enumerate().find(|(_, p)| {
        !(-margin..=PITCH_LENGTH_M + margin).contains(&p.pitch.x)
            || !(-margin..=PITCH_WIDTH_M + margin).contains(&p.pitch.y)
    }) {
        return Err(ApiError::field(
            &format!("pairs[{i}].pitch"),
            "expected metres on a 105×68 pitch (x 0..105, y 0..68)",
        ));
    }
    fit(pairs).map_err(|why| ApiError::field("pairs", why))?;
    Ok(())
}

/// Replaces a match's calibration once [`check`] passes; returns the match.
///
/// # Errors
/// 400 a calibration that does not fit, 404 unknown match.
pub async fn set_calibration(
    state: &AppState,
    id: MatchId,
    pairs: Vec<PointPair>,
) -> ApiResult<Match> {
    let pairs = tokio::task::spawn_blocking(move || check(&pairs).map(|()| pairs))
        .await
        .map_err(|e| ApiError::Internal(format!("calibration check: {e}")))??;
    Ok(state.store.set_calibration(id, pairs).await?)
}

/// A match's calibration pairs.
///
/// # Errors
/// 404 unknown match.
pub async fn get_calibration(state: &AppState, id: MatchId) -> ApiResult<Vec<PointPair>> {
    Ok(state.store.get_calibration(id).await?)
}
