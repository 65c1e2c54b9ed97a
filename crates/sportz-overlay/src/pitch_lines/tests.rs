//! Known cameras: pinholes whose ground homography is built here, so every expected pixel is
//! computed independently of the code under test.

use super::*;

const FRAME: (u32, u32) = (1280, 720);

/// A pinhole camera at `eye` looking at `at` (metres; z points down, so heights are negative and a
/// camera on the y = 68 side sees x grow to the right), focal length `f` pixels, principal point
/// at the frame's centre.
struct Pinhole {
    eye: [f64; 3],
    /// Rows: the camera's right, down and forward axes in pitch coordinates.
    r: [[f64; 3]; 3],
    f: f64,
    c: [f64; 2],
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn unit(a: [f64; 3]) -> [f64; 3] {
    let n = dot(a, a).sqrt();
    a.map(|v| v / n)
}

impl Pinhole {
    fn new(eye: [f64; 3], at: [f64; 3], f: f64) -> Self {
        let fwd = unit(sub(at, eye));
        let right = unit(cross([0.0, 0.0, 1.0], fwd));
        let down = cross(fwd, right);
        Self {
            eye,
            r: [right, down, fwd],
            f,
            c: [f64::from(FRAME.0) / 2.0, f64::from(FRAME.1) / 2.0],
        }
    }

    /// Distance of ground point `p` in front of the camera (negative: behind it).
    fn depth(&self, p: [f64; 2]) -> f64 {
        dot(self.r[2], sub([p[0], p[1], 0.0], self.eye))
    }

    /// Where ground point `p` is seen, if it is in front of the camera.
    fn pixel(&self, p: [f64; 2]) -> Option<[f64; 2]> {
        let d = sub([p[0], p[1], 0.0], self.eye);
        let (x, y, z) = (dot(self.r[0], d), dot(self.r[1], d), dot(self.r[2], d));
        (z > 0.0).then(|| [self.f * x / z + self.c[0], self.f * y / z + self.c[1]])
    }

    /// K [r1 r2 t], row-major.
    fn pitch_to_image(&self) -> [f64; 9] {
        let col = |j: usize| [self.r[0][j], self.r[1][j], self.r[2][j]];
        let t = [
            -dot(self.r[0], self.eye),
            -dot(self.r[1], self.eye),
            -dot(self.r[2], self.eye),
        ];
        let m = [col(0), col(1), t]; // columns
        let k = [
            [self.f, 0.0, self.c[0]],
            [0.0, self.f, self.c[1]],
            [0.0, 0.0, 1.0],
        ];
        let mut h = [0.0; 9];
        for i in 0..3 {
            for j in 0..3 {
                h[3 * i + j] = (0..3).map(|n| k[i][n] * m[j][n]).sum();
            }
        }
        h
    }

    fn image_to_pitch(&self) -> [f64; 9] {
        invert(&self.pitch_to_image()).expect("a camera above the ground has a ground homography")
    }
}

/// The broadcast view: high on the far side of the y = 68 touch line, looking at the centre spot.
fn broadcast() -> Pinhole {
    Pinhole::new([52.5, 68.0 + 40.0, -18.0], [52.5, 34.0, 0.0], 1000.0)
}

/// A low camera standing over the centre spot looking towards the right goal: the left half of
/// the pitch is behind it and the horizon crosses the image.
fn low() -> Pinhole {
    Pinhole::new([52.5, 34.0, -6.0], [80.0, 34.0, 0.0], 1000.0)
}

fn apply(m: &[f64; 9], p: [f64; 2]) -> [f64; 3] {
    [
        m[0] * p[0] + m[1] * p[1] + m[2],
        m[3] * p[0] + m[4] * p[1] + m[5],
        m[6] * p[0] + m[7] * p[1] + m[8],
    ]
}

fn to_pitch(image_to_pitch: &[f64; 9], q: [f32; 2]) -> [f64; 2] {
    let v = apply(image_to_pitch, [f64::from(q[0]), f64::from(q[1])]);
    [v[0] / v[2], v[1] / v[2]]
}

fn all_points(lines: &[Polyline]) -> impl Iterator<Item = [f32; 2]> + '_ {
    lines.iter().flatten().copied()
}

fn in_frame(q: [f32; 2]) -> bool {
    q.iter().all(|v| v.is_finite())
        && (0.0..=FRAME.0 as f32 + 1e-3).contains(&q[0])
        && (0.0..=FRAME.1 as f32 + 1e-3).contains(&q[1])
}

fn near(a: [f64; 2], b: [f64; 2], tol: f64) -> bool {
    (a[0] - b[0]).hypot(a[1] - b[1]) <= tol
}

#[test]
fn the_model_has_every_line_and_arc_within_the_pitch() {
    let model = pitch_model(STEP);
    // 4 boundary lines, halfway, centre circle and spot, and per end: 2 boxes, spot, arc
    assert_eq!(model.len(), 7 + 2 * 4);
    for c in &model {
        assert!(c.len() >= 2);
        for w in c.windows(2) {
            assert!(
                (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]) <= STEP + 1e-9,
                "{w:?}"
            );
        }
        for p in c {
            assert!(
                (-1e-9..=LENGTH + 1e-9).contains(&p[0]) && (-1e-9..=WIDTH + 1e-9).contains(&p[1])
            );
        }
    }
    // the penalty arcs lie outside the penalty areas, ending on their front lines
    let arc = &model[10];
    assert!(arc.iter().all(|p| p[0] >= 16.5 - 1e-9), "{arc:?}");
    assert!((arc[0][0] - 16.5).abs() < 1e-9 && (arc.last().unwrap()[0] - 16.5).abs() < 1e-9);
    let right_arc = model.last().unwrap();
    assert!(right_arc.iter().all(|p| p[0] <= LENGTH - 16.5 + 1e-9));
}

#[test]
fn a_broadcast_camera_projects_the_centre_spot_to_the_image_centre() {
    let cam = broadcast();
    let g = GroundCamera::new(&cam.image_to_pitch(), FRAME).unwrap();
    let spot = g.project([52.5, 34.0]).unwrap();
    assert!(near(spot, [640.0, 360.0], 1e-6), "{spot:?}");
    // every landmark lands where the pinhole sees it
    for p in [
        [52.5, 0.0],
        [52.5, 68.0],
        [30.0, 50.0],
        [16.5, 13.84],
        [88.5, 54.16],
    ] {
        let (want, got) = (cam.pixel(p).unwrap(), g.project(p).unwrap());
        assert!(near(want, got, 1e-6), "{p:?}: {got:?} vs {want:?}");
    }
    let lines = project_pitch_lines(&cam.image_to_pitch(), FRAME);
    assert!(lines.len() >= 10, "{} polylines", lines.len());
    assert!(all_points(&lines).all(in_frame));
    // the far side of the centre circle and the halfway line's far end are on the drawing
    for p in [[52.5, 34.0 - 9.15], [52.5, 0.0]] {
        let want = cam.pixel(p).unwrap();
        assert!(
            all_points(&lines).any(|q| near([f64::from(q[0]), f64::from(q[1])], want, 0.5)),
            "{p:?} at {want:?}"
        );
    }
}

#[test]
fn the_homography_s_scale_and_sign_do_not_matter() {
    let g = broadcast().image_to_pitch();
    let want = project_pitch_lines(&g, FRAME);
    for k in [-1.0, -3.7, 1e-4, 250.0] {
        let got = project_pitch_lines(&g.map(|v| v * k), FRAME);
        assert_eq!(got.len(), want.len(), "scale {k}");
        for (a, b) in all_points(&got).zip(all_points(&want)) {
            assert!(
                (a[0] - b[0]).abs() < 1e-2 && (a[1] - b[1]).abs() < 1e-2,
                "scale {k}"
            );
        }
    }
}

#[test]
fn points_behind_the_camera_are_dropped() {
    let cam = low();
    let g = cam.image_to_pitch();
    // the naive projection of the left goal line's centre, 52.5 m behind, lands in the frame
    // (mirrored above the horizon): exactly what must not be drawn
    let h = cam.pitch_to_image();
    let v = apply(&h, [0.0, 34.0]);
    let naive = [v[0] / v[2], v[1] / v[2]];
    assert!(cam.depth([0.0, 34.0]) < 0.0);
    assert!(
        (0.0..1280.0).contains(&naive[0]) && (0.0..720.0).contains(&naive[1]),
        "{naive:?}"
    );
    let ground = GroundCamera::new(&g, FRAME).unwrap();
    assert_eq!(ground.project([0.0, 34.0]), None);
    assert!(ground.project([80.0, 34.0]).is_some());

    let lines = project_pitch_lines(&g, FRAME);
    assert!(!lines.is_empty());
    for q in all_points(&lines) {
        assert!(in_frame(q), "{q:?}");
        let p = to_pitch(&g, q);
        assert!(
            cam.depth(p) > 0.0,
            "{q:?} is pitch {p:?}, behind the camera"
        );
    }
}

#[test]
fn a_horizon_across_the_image_splits_lines_at_the_gap() {
    let cam = low();
    let g = cam.image_to_pitch();
    // the horizon (w = 0) crosses the image: top and bottom rows are on opposite sides
    let w = |x: f64, y: f64| g[6] * x + g[7] * y + g[8];
    assert!(w(640.0, 0.0).signum() != w(640.0, 720.0).signum());
    let ground = GroundCamera::new(&g, FRAME).unwrap();
    // in front (85, 30) → behind (20, 34) → in front (85, 38): two pieces, never one joined
    // through the gap
    assert!(
        cam.pixel([85.0, 30.0])
            .is_some_and(|q| in_frame(q.map(|v| v as f32)))
    );
    let curve: Vec<[f64; 2]> = segment([85.0, 30.0], [20.0, 34.0], STEP)
        .into_iter()
        .chain(
            segment([20.0, 34.0], [85.0, 38.0], STEP)
                .into_iter()
                .skip(1),
        )
        .collect();
    let pieces = ground.project_curve(&curve, FRAME);
    assert_eq!(pieces.len(), 2, "{pieces:?}");
    let side = w(640.0, 720.0).signum();
    for q in pieces.iter().flatten() {
        assert_eq!(
            w(f64::from(q[0]), f64::from(q[1])).signum(),
            side,
            "{q:?} above the horizon"
        );
    }
    // each piece ends where the curve leaves the frame, on an edge
    for piece in &pieces {
        let ends = [piece[0], *piece.last().unwrap()];
        assert!(
            ends.iter()
                .any(|q| q[0] <= 1e-3 || q[0] >= 1280.0 - 1e-3 || q[1] >= 720.0 - 1e-3),
            "{piece:?}"
        );
    }
    // and the whole model stays below the horizon
    for q in all_points(&project_pitch_lines(&g, FRAME)) {
        assert_eq!(w(f64::from(q[0]), f64::from(q[1])).signum(), side, "{q:?}");
    }
}

#[test]
fn a_curve_leaving_and_reentering_the_frame_is_two_polylines_cut_at_the_edge() {
    // identity: pitch metres are pixels
    let id = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    let ground = GroundCamera::new(&id, (100, 100)).unwrap();
    let pieces = ground.project_curve(
        &[[10.0, 50.0], [-50.0, 50.0], [-50.0, 60.0], [10.0, 60.0]],
        (100, 100),
    );
    assert_eq!(
        pieces,
        vec![
            vec![[10.0, 50.0], [0.0, 50.0]],
            vec![[0.0, 60.0], [10.0, 60.0]]
        ]
    );
    // the identity camera draws the model in the top-left 105 × 68 px
    let lines = project_pitch_lines(&id, FRAME);
    assert!(!lines.is_empty());
    assert!(all_points(&lines).all(|q| q[0] <= 105.0 + 1e-3 && q[1] <= 68.0 + 1e-3));
}

#[test]
fn garbage_matrices_draw_nothing_or_finite_points_inside_the_frame() {
    let cases: [[f64; 9]; 8] = [
        [0.0; 9],
        [f64::NAN; 9],
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, f64::INFINITY],
        [1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.0, 0.0, 1.0], // rank 2
        [1e300, 0.0, 0.0, 0.0, 1e300, 0.0, 0.0, 0.0, 1e-300],
        [1e-12, 3e-13, 2.0, -5e-13, 1e-12, 7.0, 1e-15, 2e-15, 1e-12],
        [0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.01, -0.02, 1.0],
        [3.0, -1.0, 400.0, 0.5, 9.0, -30.0, 0.001, 0.004, -2.0],
    ];
    for m in cases {
        let lines = project_pitch_lines(&m, FRAME);
        for q in all_points(&lines) {
            assert!(in_frame(q), "{m:?} gave {q:?}");
        }
        for l in &lines {
            assert!(l.len() >= 2, "{m:?}");
        }
    }
    assert!(invert(&[0.0; 9]).is_none());
    assert!(invert(&[f64::NAN; 9]).is_none());
    assert!(project_pitch_lines(&[0.0; 9], FRAME).is_empty());
}

#[test]
fn invert_inverts() {
    let m = broadcast().pitch_to_image();
    let inv = invert(&m).unwrap();
    for i in 0..3 {
        for j in 0..3 {
            let v: f64 = (0..3).map(|k| m[3 * i + k] * inv[3 * k + j]).sum();
            assert!(
                (v - f64::from(u8::from(i == j))).abs() < 1e-9,
                "{i}{j}: {v}"
            );
        }
    }
}
