use super::*;
use crate::teams::{TeamAssigner, TeamConfig, torso_colour};
use sportz_contract::{ObjectClass, TeamSide};

const GRASS: [u8; 3] = [40, 140, 40];
const SKIN: [u8; 3] = [236, 196, 160];
const RED: [u8; 3] = [200, 20, 20];
const WHITE: [u8; 3] = [250, 250, 250];

fn unit(p: [u8; 3]) -> Colour {
    p.map(|v| f32::from(v) / 255.0)
}

fn close(a: Colour, b: Colour, tol: f32) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

/// A 20×40 picture of grass with a person in columns 6..14 from row 8 down (the box, the whole
/// picture, has 8 rows of grass above the head, as detectors' boxes on real footage do): head
/// rows 8..12, shirt 12..24, shorts 24..30, legs 30..40.
fn person(shirt: [u8; 3]) -> Vec<u8> {
    let mut data = Vec::new();
    for y in 0..40u32 {
        for x in 0..20u32 {
            let px = if !(6..14).contains(&x) || y < 8 {
                GRASS
            } else if !(12..30).contains(&y) {
                SKIN
            } else if y < 24 {
                shirt
            } else {
                WHITE
            };
            data.extend(px);
        }
    }
    data
}

#[test]
fn the_kit_colour_is_the_shirt_where_the_torso_mean_mixes_in_the_head() {
    let data = person(RED);
    let img = RgbImage::new(&data, 20, 40).unwrap();
    let bbox = BBox::new(0.0, 0.0, 20.0, 40.0);
    let pixels = kit_pixels(&img, &bbox);
    assert!(!pixels.as_slice().is_empty());
    let kit = dominant_colour(pixels.as_slice()).unwrap();
    assert!(close(kit, unit(RED), 1e-6), "{kit:?}");
    // the clustering's torso colour (15–50 % of the box) is half head
    let mean = torso_colour(&img, &bbox).unwrap();
    assert!(!close(mean, unit(RED), 0.2), "{mean:?}");
}

#[test]
fn no_kit_pixels_off_the_picture_on_bare_grass_or_without_grass_to_compare() {
    let data = person(RED);
    let img = RgbImage::new(&data, 20, 40).unwrap();
    for (what, bbox) in [
        ("off the picture", BBox::new(50.0, 50.0, 60.0, 90.0)),
        ("bare grass", BBox::new(14.0, 0.0, 20.0, 40.0)),
        ("all shirt, no grass", BBox::new(7.0, 12.0, 13.0, 24.0)),
        ("two rows", BBox::new(0.0, 10.0, 20.0, 12.0)),
    ] {
        assert!(kit_pixels(&img, &bbox).as_slice().is_empty(), "{what}");
    }
}

#[test]
fn a_large_crop_is_read_on_a_coarser_grid_and_still_gives_the_shirt() {
    // the same person 10 times larger: 200×400
    let small = person(RED);
    let mut data = Vec::new();
    for y in 0..400usize {
        for x in 0..200usize {
            let i = ((y / 10) * 20 + x / 10) * 3;
            data.extend(&small[i..i + 3]);
        }
    }
    let img = RgbImage::new(&data, 200, 400).unwrap();
    let pixels = kit_pixels(&img, &BBox::new(0.0, 0.0, 200.0, 400.0));
    assert_eq!(pixels.as_slice().len(), KIT_SAMPLE);
    let kit = dominant_colour(pixels.as_slice()).unwrap();
    assert!(close(kit, unit(RED), 1e-6), "{kit:?}");
}

fn repeat(parts: &[([u8; 3], usize)]) -> Vec<[u8; 3]> {
    parts
        .iter()
        .flat_map(|&(p, n)| std::iter::repeat_n(p, n))
        .collect()
}

#[test]
fn dominant_colours() {
    type Case = (&'static str, Vec<[u8; 3]>, Option<[u8; 3]>);
    let cases: [Case; 7] = [
        // a red shirt with light shoulders and skin: the red
        (
            "red with pink-white",
            repeat(&[
                ([182, 60, 54], 30),
                ([160, 38, 32], 30),
                ([255, 219, 210], 25),
                ([236, 196, 160], 15),
            ]),
            Some([182, 60, 54]), // the upper median of the two reds
        ),
        // a pale grey-blue shirt whose pixels carry the grass's tint: grey, not green
        (
            "pale grey",
            repeat(&[
                ([160, 170, 161], 50),
                ([171, 181, 172], 40),
                ([69, 82, 54], 10),
            ]),
            Some([160, 170, 161]),
        ),
        (
            "black",
            repeat(&[([20, 20, 25], 80), ([236, 196, 160], 20)]),
            Some([20, 20, 25]),
        ),
        // reds on both sides of 0°: one hue, not two
        (
            "hue wrap",
            repeat(&[
                ([200, 20, 40], 40),
                ([200, 40, 20], 40),
                ([30, 70, 200], 30),
            ]),
            Some([200, 40, 40]), // both reds chosen: the medians of 20s and 40s
        ),
        (
            "yellow",
            repeat(&[([240, 210, 30], 90), ([40, 30, 20], 10)]),
            Some([240, 210, 30]),
        ),
        // more skin than shirt (a distant player), but the shirt is the more saturated
        (
            "red shirt, more skin",
            repeat(&[
                ([182, 60, 54], 35),
                ([205, 150, 110], 45),
                ([250, 250, 250], 20),
            ]),
            Some([182, 60, 54]),
        ),
        ("nothing", Vec::new(), None),
    ];
    for (what, pixels, expected) in cases {
        let got = dominant_colour(&pixels);
        match (got, expected) {
            (Some(g), Some(e)) => assert!(
                close(g, unit(e), 1.0 / 255.0 + 1e-6),
                "{what}: {g:?} vs {e:?}"
            ),
            (g, e) => assert_eq!(g, e.map(unit), "{what}"),
        }
    }
}

#[test]
fn the_assigner_publishes_each_sides_pooled_shirt_colour() {
    let mut teams = TeamAssigner::new(TeamConfig::default());
    assert_eq!(teams.kit_colours(), None, "no model yet");
    // the clustering sees washed-out torso means: tan and grey-green
    let (tan, olive) = ([0.70, 0.55, 0.40], [0.53, 0.56, 0.44]);
    for i in 0..40u64 {
        teams.observe(
            i,
            Some(ObjectClass::Player),
            Some(if i % 2 == 0 { tan } else { olive }),
        );
    }
    let centres = teams.model().unwrap().centres;
    assert_eq!(
        teams.kit_colours(),
        Some(centres),
        "no pixels pooled yet: the centres"
    );
    let red = KitPixels {
        px: [[180, 60, 40]; KIT_SAMPLE],
        len: KIT_SAMPLE,
    };
    let grey = KitPixels {
        px: [[146, 155, 165]; KIT_SAMPLE],
        len: KIT_SAMPLE,
    };
    let black = KitPixels {
        px: [[20, 20, 20]; KIT_SAMPLE],
        len: KIT_SAMPLE,
    };
    for _ in 0..20 {
        teams.observe_kit(Some(ObjectClass::Player), Some(tan), &red);
        teams.observe_kit(Some(ObjectClass::Player), Some(olive), &grey);
        // a referee's pixels, whatever his colour reads, and an outlier's are not pooled
        teams.observe_kit(Some(ObjectClass::Referee), Some(tan), &black);
        teams.observe_kit(Some(ObjectClass::Player), Some([0.05, 0.05, 0.05]), &black);
    }
    let model = teams.model().unwrap();
    let side = |c: Colour| usize::from(model.classify(&c) == TeamSide::Away);
    let kits = teams.kit_colours().unwrap();
    assert!(
        close(kits[side(tan)], unit([180, 60, 40]), 1e-6),
        "{kits:?}"
    );
    assert!(
        close(kits[side(olive)], unit([146, 155, 165]), 1e-6),
        "{kits:?}"
    );
}

#[test]
fn one_kit_split_in_two_by_shading_is_no_sides() {
    let mut teams = TeamAssigner::new(TeamConfig::default());
    // one yellow kit, its torso means split by shading into a lit and a shaded cluster
    let (lit, shaded) = ([0.9, 0.8, 0.2], [0.6, 0.5, 0.1]);
    for i in 0..40u64 {
        teams.observe(
            i,
            Some(ObjectClass::Player),
            Some(if i % 2 == 0 { lit } else { shaded }),
        );
    }
    for i in 0..40u64 {
        teams.observe(
            i,
            Some(ObjectClass::Player),
            Some(if i % 2 == 0 { lit } else { shaded }),
        );
        teams.observe(
            i,
            Some(ObjectClass::Player),
            Some(if i % 2 == 0 { lit } else { shaded }),
        );
    }
    teams.observe(99, Some(ObjectClass::Referee), None);
    assert!(!teams.one_kit(), "no pixels pooled yet");
    assert!(teams.team_of(0).is_some() && teams.team_of(1).is_some());
    assert_ne!(
        teams.team_of(0),
        teams.team_of(1),
        "the clustering's two sides"
    );
    // both clusters' shirt pixels are the one yellow
    let yellow = KitPixels {
        px: [[240, 210, 30]; KIT_SAMPLE],
        len: KIT_SAMPLE,
    };
    let yellowish = KitPixels {
        px: [[236, 205, 36]; KIT_SAMPLE],
        len: KIT_SAMPLE,
    };
    for _ in 0..20 {
        teams.observe_kit(Some(ObjectClass::Player), Some(lit), &yellow);
        teams.observe_kit(Some(ObjectClass::Player), Some(shaded), &yellowish);
    }
    assert!(teams.one_kit());
    assert_eq!((teams.team_of(0), teams.team_of(1)), (None, None));
    assert_eq!(
        teams.team_of(99),
        Some(TeamSide::Other),
        "a referee is still a referee"
    );

    // two kits closer than any pair the synth plays (red and maroon, 83 apart) stay two sides
    let mut two = TeamAssigner::new(TeamConfig::default());
    for i in 0..120u64 {
        two.observe(
            i % 40,
            Some(ObjectClass::Player),
            Some(if i % 2 == 0 { lit } else { shaded }),
        );
    }
    let a = KitPixels {
        px: [[200, 28, 36]; KIT_SAMPLE],
        len: KIT_SAMPLE,
    };
    let b = KitPixels {
        px: [[118, 22, 48]; KIT_SAMPLE],
        len: KIT_SAMPLE,
    };
    for _ in 0..20 {
        two.observe_kit(Some(ObjectClass::Player), Some(lit), &a);
        two.observe_kit(Some(ObjectClass::Player), Some(shaded), &b);
    }
    assert!(!two.one_kit());
    assert!(two.team_of(0).is_some() && two.team_of(1).is_some());
}
