//! The published kit colours (`frame.data.kits`) against the synth's shirts. Which side the
//! worker calls `home` is a convention (the darker kit), so the two published colours are paired
//! with the two true shirts the way that fits best.

use sportz_contract::FrameData;
use sportz_contract::frame::hex_of_rgb as hex;

use crate::KitMetrics;

/// Euclidean distance in RGB, 0..=255 per channel.
fn distance(a: [u8; 3], b: [u8; 3]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(&x, y)| (f64::from(x) - f64::from(y)).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// `None` without true shirts; else the last predicted frame's kits paired with them.
pub(super) fn kits(truth: Option<[[u8; 3]; 2]>, pred: &[FrameData]) -> Option<KitMetrics> {
    let truth = truth?;
    let with_kits: Vec<[[u8; 3]; 2]> = pred.iter().filter_map(|f| f.kits.as_ref()?.rgb()).collect();
    let published = with_kits.last().map(|&[a, b]| {
        let straight = distance(a, truth[0]) + distance(b, truth[1]);
        let crossed = distance(b, truth[0]) + distance(a, truth[1]);
        if crossed < straight { [b, a] } else { [a, b] }
    });
    Some(KitMetrics {
        truth: truth.map(hex),
        published: published.map(|p| p.map(hex)),
        error: published.map(|p| [distance(p[0], truth[0]), distance(p[1], truth[1])]),
        frames_with_kits: with_kits.len() as u64,
        frames: pred.len() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_pair_is_matched_to_the_shirts_either_way_round() {
        let bare = || FrameData {
            frame_number: 0,
            video_timestamp: 0.0,
            timestamp: 0.0,
            width: 1280,
            height: 720,
            coordinate_mode: sportz_contract::CoordinateMode::Pixel,
            ball: None,
            trail: Vec::new(),
            players: Vec::new(),
            latency_ms: 0.0,
            camera: None,
            kits: None,
        };
        let frame = |home: &str, away: &str| FrameData {
            kits: Some(sportz_contract::Kits {
                home: home.to_owned(),
                away: away.to_owned(),
            }),
            ..bare()
        };
        let truth = [[240, 210, 30], [118, 22, 48]];
        // the worker calls the darker maroon home: crossed
        let pred = [
            bare(),
            frame("#ffffff", "#000000"),
            frame("#77162c", "#f0d120"),
        ];
        let m = kits(Some(truth), &pred).unwrap();
        assert_eq!(m.truth, ["#f0d21e".to_owned(), "#761630".to_owned()]);
        assert_eq!(
            m.published,
            Some(["#f0d120".to_owned(), "#77162c".to_owned()])
        );
        let e = m.error.unwrap();
        assert!((e[0] - 5.0f64.sqrt()).abs() < 1e-9, "{e:?}"); // (0, 1, 2) apart
        assert!((e[1] - 17.0f64.sqrt()).abs() < 1e-9, "{e:?}"); // (1, 0, 4) apart
        assert_eq!((m.frames_with_kits, m.frames), (2, 3));
        // no kits published: the truth, nothing to compare
        let none = kits(Some(truth), &[bare()]).unwrap();
        assert_eq!((none.published, none.error), (None, None));
        // no true shirts: no section
        assert_eq!(kits(None, &pred), None);
    }
}
