//! The overlay on a real (software) adapter: snapshots of known scenes with pixel tolerances, and
//! pixel checks of what each mark must look like. Set `UPDATE_SNAPSHOTS=1` to rewrite the
//! references after an intended change; every render is also written under
//! `target/overlay-snapshots/` for people to look at.

use std::path::PathBuf;

use sportz_overlay::{
    BoxMark, Mark, Offscreen, Radar, RadarDot, Rgba, RgbaImage, Scene, VideoImage,
};

const RED: Rgba = Rgba::rgb(230, 40, 40);
const BLUE: Rgba = Rgba::rgb(40, 90, 230);

/// A 1280×720 frame: grass stripes with a white vertical line at x = 640.
fn video() -> VideoImage {
    let (w, h) = (1280u32, 720u32);
    let mut rgb = Vec::with_capacity((w * h * 3) as usize);
    for _y in 0..h {
        for x in 0..w {
            let px = if (638..642).contains(&x) {
                [250, 250, 250]
            } else if (x / 160) % 2 == 0 {
                [40, 130, 50]
            } else {
                [55, 150, 65]
            };
            rgb.extend_from_slice(&px);
        }
    }
    VideoImage {
        width: w,
        height: h,
        rgb,
    }
}

fn match_scene() -> Scene {
    let mut s = Scene::new(1280, 720);
    s.video = Some(video());
    s.boxes = vec![
        BoxMark {
            x1: 200.0,
            y1: 300.0,
            x2: 260.0,
            y2: 440.0,
            color: RED,
            label: Some(7),
        },
        BoxMark {
            x1: 800.0,
            y1: 200.0,
            x2: 850.0,
            y2: 320.0,
            color: BLUE,
            label: Some(14),
        },
        BoxMark {
            x1: 1000.0,
            y1: 500.0,
            x2: 1060.0,
            y2: 650.0,
            color: BLUE,
            label: None,
        },
    ];
    s.trail = (0..10)
        .map(|i| Mark {
            x: 400.0 + 20.0 * i as f32,
            y: 600.0 - 10.0 * i as f32,
            predicted: i >= 7,
        })
        .collect();
    s.ball = Some(Mark {
        x: 580.0,
        y: 510.0,
        predicted: false,
    });
    s.radar = Some(Radar {
        length: 105.0,
        width: 68.0,
        dots: vec![
            RadarDot {
                x: 30.0,
                y: 34.0,
                color: RED,
            },
            RadarDot {
                x: 75.0,
                y: 20.0,
                color: BLUE,
            },
        ],
        ball: Some((52.5, 34.0)),
    });
    s
}

fn artefacts() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/overlay-snapshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn render(scene: &Scene, w: u32, h: u32, name: &str) -> RgbaImage {
    let mut off =
        Offscreen::new(w, h).expect("a wgpu adapter (lavapipe: apt install mesa-vulkan-drivers)");
    eprintln!("adapter: {}", off.describe());
    let img = off.render(scene).unwrap();
    std::fs::write(
        artefacts().join(format!("{name}.png")),
        img.to_png().unwrap(),
    )
    .unwrap();
    img
}

/// Compares with `tests/snapshots/{name}.png`: a channel may differ by 12, and at most 0.5 % of
/// pixels may differ by more (rasterisers differ slightly at triangle edges).
fn assert_snapshot(img: &RgbaImage, name: &str) {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/snapshots/{name}.png"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, img.to_png().unwrap()).unwrap();
        return;
    }
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "missing snapshot {} ({e}); run with UPDATE_SNAPSHOTS=1 and review it",
            path.display()
        )
    });
    let want = RgbaImage::from_png(&bytes).unwrap();
    assert_eq!(
        (want.width, want.height),
        (img.width, img.height),
        "snapshot size"
    );
    let bad = want
        .data
        .chunks_exact(4)
        .zip(img.data.chunks_exact(4))
        .filter(|(a, b)| a.iter().zip(b.iter()).any(|(x, y)| x.abs_diff(*y) > 12))
        .count();
    let total = (img.width * img.height) as usize;
    assert!(
        bad * 200 <= total,
        "{bad} of {total} pixels differ from {} (see target/overlay-snapshots/{name}.png)",
        path.display()
    );
}

fn close(px: [u8; 4], want: Rgba, tol: u8) -> bool {
    px.iter()
        .zip(want.0.iter())
        .all(|(a, b)| a.abs_diff(*b) <= tol)
}

#[test]
fn match_scene_matches_its_snapshot() {
    let img = render(&match_scene(), 640, 360, "match_scene");
    assert_snapshot(&img, "match_scene");
}

#[test]
fn marks_land_where_the_scene_puts_them() {
    // canvas 640×360 shows the 1280×720 frame at half scale
    let img = render(&match_scene(), 640, 360, "marks");
    // the video: stripes and the white line at x = 640 → 320
    assert!(
        close(img.pixel(40, 100), Rgba::rgb(40, 130, 50), 6),
        "{:?}",
        img.pixel(40, 100)
    );
    assert!(
        close(img.pixel(320, 100), Rgba::rgb(250, 250, 250), 30),
        "{:?}",
        img.pixel(320, 100)
    );
    // box 7's left edge at x = 100, its inside is video
    assert!(
        close(img.pixel(100, 200), RED, 4),
        "{:?}",
        img.pixel(100, 200)
    );
    assert!(!close(img.pixel(115, 200), RED, 40));
    // box 14's right edge at x = 425 − 1
    assert!(
        close(img.pixel(424, 140), BLUE, 4),
        "{:?}",
        img.pixel(424, 140)
    );
    // the ball at (290, 255) is drawn yellow
    assert!(
        close(img.pixel(290, 255), sportz_overlay::geometry::BALL, 6),
        "{:?}",
        img.pixel(290, 255)
    );
    // the radar sits bottom-right with the pitch green and a red dot at 30 m, 34 m
    let r = sportz_overlay::geometry::radar_rect((640, 360), match_scene().radar.as_ref().unwrap());
    let s = r.w / 105.0;
    let (dx, dy) = ((r.x + 30.0 * s) as u32, (r.y + 34.0 * s) as u32);
    assert!(close(img.pixel(dx, dy), RED, 4), "{:?}", img.pixel(dx, dy));
    assert!(close(
        img.pixel((r.x + 5.0) as u32, (r.y + 5.0) as u32),
        Rgba::rgb(38, 120, 60),
        4
    ));
}

#[test]
fn without_video_the_frame_area_is_tinted_and_letterboxed() {
    let mut s = Scene::new(1280, 720);
    s.boxes.push(BoxMark {
        x1: 0.0,
        y1: 0.0,
        x2: 100.0,
        y2: 100.0,
        color: RED,
        label: Some(3),
    });
    // a 4:3 canvas: bars above and below the 16:9 frame
    let img = render(&s, 400, 300, "no_video");
    assert!(
        close(img.pixel(200, 5), s.background, 2),
        "{:?}",
        img.pixel(200, 5)
    );
    let mid = img.pixel(200, 150);
    assert!(mid[1] > mid[0] && mid[1] > mid[2], "tinted green: {mid:?}");
    assert_snapshot(&img, "no_video");
}

#[test]
fn predicted_ball_is_a_ring_and_its_trail_is_dashed() {
    let mut s = Scene::new(640, 360);
    s.ball = Some(Mark {
        x: 320.0,
        y: 180.0,
        predicted: true,
    });
    s.trail = vec![
        Mark {
            x: 100.0,
            y: 100.0,
            predicted: true,
        },
        Mark {
            x: 300.0,
            y: 100.0,
            predicted: true,
        },
    ];
    let img = render(&s, 640, 360, "predicted");
    // the ring's centre shows the background (tinted), its rim the ball colour
    assert!(!close(
        img.pixel(320, 180),
        sportz_overlay::geometry::BALL,
        40
    ));
    let yellow_on_trail = (100..300).filter(|x| img.pixel(*x, 100)[0] > 150).count();
    assert!(
        (60..140).contains(&yellow_on_trail),
        "dashes cover about half: {yellow_on_trail}"
    );
}

#[test]
fn every_shader_validates_with_naga() {
    for (name, src) in sportz_overlay::SHADERS {
        let module = naga::front::wgsl::parse_str(src)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(src)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        for stage in ["vs_main", "fs_main"] {
            assert!(
                module.entry_points.iter().any(|e| e.name == stage),
                "{name} has {stage}"
            );
        }
    }
}

#[test]
fn bad_sizes_are_refused_with_the_range() {
    let e = Offscreen::new(0, 10).unwrap_err().to_string();
    assert!(e.contains("expected 1–8192"), "{e}");
}

/// A camera looking straight down: pixel = 10 × metres + (115, 20), so the 105 × 68 m pitch fills
/// 1050 × 680 px of a 1280 × 720 frame and the halfway line is at x = 640.
const TOP_DOWN: [f64; 9] = [0.1, 0.0, -11.5, 0.0, 0.1, -2.0, 0.0, 0.0, 1.0];

#[test]
fn projected_pitch_lines_are_drawn_over_the_video_and_can_be_turned_off() {
    let plain = VideoImage {
        width: 1280,
        height: 720,
        rgb: [40u8, 130, 50].repeat(1280 * 720),
    };
    let mut s = Scene::new(1280, 720);
    s.video = Some(plain);
    let bare = render(&s, 1280, 720, "pitch_lines_bare");
    s.pitch_lines = sportz_overlay::project_pitch_lines(&TOP_DOWN, (1280, 720));
    assert!(!s.pitch_lines.is_empty());
    let drawn = render(&s, 1280, 720, "pitch_lines");
    let changed = bare
        .data
        .chunks_exact(4)
        .zip(drawn.data.chunks_exact(4))
        .filter(|(a, b)| a != b)
        .count();
    // ≈ 700 m of lines at 10 px a metre, 2 px thick
    assert!(changed > 5_000, "{changed} pixels changed");
    // the halfway line (x = 640) is cyan over the grass; the grass beside it is untouched
    let on = drawn.pixel(640, 100);
    assert!(
        on[2] > 150 && on[1] > 150 && on[0] < 60,
        "halfway line pixel {on:?}"
    );
    assert!(close(drawn.pixel(600, 100), Rgba::rgb(40, 130, 50), 6));
    // the goal line at x = 115
    assert!(
        drawn.pixel(115, 360)[2] > 150,
        "{:?}",
        drawn.pixel(115, 360)
    );
    s.show_pitch_lines = false;
    let off = render(&s, 1280, 720, "pitch_lines_off");
    assert_eq!(off.data, bare.data, "turned off, nothing is drawn");
}
