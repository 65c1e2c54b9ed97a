use super::*;

const W: u32 = 640;
const H: u32 = 360;

/// A textured scene (a checkerboard of 6-px squares on grass) seen `shift` px to the right,
/// with a badge (white bars on black) fixed at (512..608, 16..48) unless `badge` is false.
fn frame(shift: u32, badge: bool) -> Vec<u8> {
    let mut px = vec![0u8; (W * H * 3) as usize];
    for y in 0..H {
        for x in 0..W {
            let wx = x + 1000 - shift;
            let on = ((wx / 6) + (y / 6)).is_multiple_of(2);
            let mut c = if on { [200, 200, 200] } else { [40, 120, 40] };
            if x < 3 {
                // a dark edge of the picture, as still as a badge
                c = [5, 5, 5];
            }
            if badge && (512..608).contains(&x) && (16..48).contains(&y) {
                c = if (x / 3).is_multiple_of(2) {
                    [255, 255, 255]
                } else {
                    [0, 0, 0]
                };
            }
            let i = ((y * W + x) * 3) as usize;
            px[i..i + 3].copy_from_slice(&c);
        }
    }
    px
}

fn pan(dx: f64) -> Homography {
    Homography::from_matrix([[1.0, 0.0, dx], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]).unwrap()
}

/// Frames `frames` of a 4-px-a-frame pan, the badge shown where `badge` says.
fn pan_over(mask: &mut GraphicsMask, frames: std::ops::Range<u32>, badge: impl Fn(u32) -> bool) {
    let h = pan(4.0);
    for i in frames {
        let f = frame(4 * i, badge(i));
        mask.observe(&RgbImage::new(&f, W, H).unwrap(), PictureChange::Moved(&h));
    }
}

const BADGE: Point = Point { x: 560.0, y: 32.0 };
const SCENE: Point = Point { x: 100.0, y: 100.0 };

#[test]
fn a_badge_that_stays_while_the_camera_pans_is_a_graphic_and_the_scene_is_not() {
    let mut mask = GraphicsMask::new(GraphicsConfig::default());
    let h = pan(4.0);
    for i in 0..40 {
        let f = frame(4 * i, true);
        let img = RgbImage::new(&f, W, H).unwrap();
        mask.observe(&img, PictureChange::Moved(&h));
        // not before a second of panning
        if i < 20 {
            assert!(!mask.covers(BADGE), "frame {i}");
        }
    }
    assert!(mask.covers(BADGE));
    assert!(!mask.covers(SCENE));
    assert!(
        !mask.covers(Point::new(4.0, 100.0)),
        "the frame's dark edge"
    );
    assert!(
        mask.share() > 0.0 && mask.share() < 0.05,
        "{}",
        mask.share()
    );
}

#[test]
fn a_still_camera_teaches_nothing() {
    let mut mask = GraphicsMask::new(GraphicsConfig::default());
    let h = pan(0.5);
    for _ in 0..60 {
        let f = frame(0, true);
        let img = RgbImage::new(&f, W, H).unwrap();
        mask.observe(&img, PictureChange::Moved(&h));
        mask.observe(&img, PictureChange::Unknown);
    }
    assert!(!mask.covers(BADGE));
    assert!(!mask.covers(SCENE), "a still scene is no graphic");
}

#[test]
fn a_badge_that_survives_three_cuts_is_a_graphic_two_are_not_enough() {
    let mut mask = GraphicsMask::new(GraphicsConfig::default());
    let shots = [0, 37, 91, 160];
    for (k, &s) in shots.iter().enumerate() {
        let f = frame(s, true);
        mask.observe(
            &RgbImage::new(&f, W, H).unwrap(),
            if k == 0 {
                PictureChange::Unknown
            } else {
                PictureChange::Cut
            },
        );
        assert_eq!(mask.covers(BADGE), k >= 3, "after {k} cuts");
        assert!(!mask.covers(SCENE));
    }
}

#[test]
fn a_graphic_that_goes_away_is_forgotten_and_flat_cells_never_are_graphics() {
    let mut mask = GraphicsMask::new(GraphicsConfig::default());
    pan_over(&mut mask, 0..40, |_| true);
    assert!(mask.covers(BADGE));
    // one frame that changes it (a translucent badge, compression) does not undo it
    pan_over(&mut mask, 40..41, |_| false);
    assert!(mask.covers(BADGE));
    // the badge leaves for good: the scene shows through where it was, changing every frame
    pan_over(&mut mask, 41..46, |_| false);
    assert!(!mask.covers(BADGE));
    let h = pan(4.0);
    // a flat picture under a pan (one colour everywhere) holds no graphic
    let mut flat_mask = GraphicsMask::new(GraphicsConfig::default());
    let flat = vec![90u8; (W * H * 3) as usize];
    for _ in 0..40 {
        flat_mask.observe(
            &RgbImage::new(&flat, W, H).unwrap(),
            PictureChange::Moved(&h),
        );
    }
    assert_eq!(flat_mask.share(), 0.0);
}

#[test]
fn another_frame_size_starts_over_and_points_outside_are_no_graphic() {
    let mut mask = GraphicsMask::new(GraphicsConfig::default());
    pan_over(&mut mask, 0..40, |_| true);
    assert!(mask.covers(BADGE));
    assert!(!mask.covers(Point::new(-1.0, 5.0)));
    assert!(!mask.covers(Point::new(5000.0, 5.0)));
    assert!(!mask.covers(Point::new(f64::NAN, 5.0)));
    let small = vec![90u8; 160 * 90 * 3];
    mask.observe(&RgbImage::new(&small, 160, 90).unwrap(), PictureChange::Cut);
    assert_eq!(mask.share(), 0.0);
    assert!(!mask.covers(Point::new(100.0, 10.0)));
}

#[test]
fn a_badge_that_flickers_now_and_then_is_still_a_graphic() {
    let mut mask = GraphicsMask::new(GraphicsConfig::default());
    // one frame in ten the badge is gone (compression, a translucent badge over a change): the
    // frame it goes and the frame it comes back both change it
    pan_over(&mut mask, 0..200, |i| i % 10 != 9);
    assert!(mask.covers(BADGE));
    assert!(!mask.covers(SCENE));
}
