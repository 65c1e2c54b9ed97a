use super::*;

fn main_camera() -> BroadcastCamera {
    BroadcastCamera {
        position: [52.4, 68.0 + 45.2, 16.8],
        pan: 0.2,
        tilt: 12f64.to_radians(),
        roll: 0.01,
        focal_px: 3018.0,
        width: 1280,
        height: 720,
    }
}

#[test]
fn the_homography_is_the_projection_on_the_ground() {
    let c = main_camera();
    let h = c.image_from_pitch().unwrap();
    for (x, y) in [(52.5, 34.0), (70.0, 10.0), (88.5, 54.16)] {
        let p = Point::new(x, y);
        let a = c.project(p).unwrap();
        let b = h.apply(p).unwrap();
        assert!(a.distance(&b) < 1e-6, "{a:?} {b:?}");
    }
    // the image centre sees what the camera looks at
    let (right, down, fwd) = c.axes();
    assert!(dot(right, fwd).abs() < 1e-12 && dot(down, fwd).abs() < 1e-12);
    assert!(dot(right, down).abs() < 1e-12);
}

#[test]
fn decomposition_recovers_the_camera() {
    for (pan, tilt, roll, f, pos) in [
        (0.2, 12.0, 0.01, 3018.0, [52.4, 113.2, 16.8]),
        (-0.6, 20.0, -0.03, 1463.0, [45.0, 84.7, 10.1]),
        (0.5, 8.0, 0.0, 5697.0, [60.8, 134.0, 23.0]),
    ] {
        let c = BroadcastCamera {
            position: pos,
            pan,
            tilt: f64::to_radians(tilt),
            roll,
            focal_px: f,
            width: 1280,
            height: 720,
        };
        let m = c.image_from_pitch_matrix();
        // any scale, either sign
        let m2 = m.map(|r| r.map(|v| -3.7 * v));
        for mm in [m, m2] {
            let d = BroadcastCamera::from_homography(&mm, 1280, 720).unwrap();
            assert!((d.focal_px - f).abs() / f < 1e-6, "{d:?}");
            assert!(
                (d.pan - pan).abs() < 1e-6 && (d.tilt - c.tilt).abs() < 1e-6,
                "{d:?}"
            );
            assert!((d.roll - roll).abs() < 1e-6, "{d:?}");
            for (got, want) in d.position.iter().zip(pos) {
                assert!((got - want).abs() < 1e-4, "{d:?}");
            }
        }
    }
}

#[test]
fn implausible_cameras_are_refused_with_the_reason() {
    let ok = main_camera();
    assert_eq!(ok.check(), Ok(()));
    let cases: Vec<(BroadcastCamera, &str)> = vec![
        (
            BroadcastCamera {
                position: [52.0, 100.0, -5.0],
                ..ok
            },
            "height",
        ),
        (
            BroadcastCamera {
                position: [52.0, 900.0, 20.0],
                ..ok
            },
            "from the centre spot",
        ),
        (
            BroadcastCamera {
                focal_px: 100.0,
                ..ok
            },
            "field of view",
        ),
        (BroadcastCamera { roll: 0.5, ..ok }, "roll"),
        (BroadcastCamera { tilt: -0.2, ..ok }, "tilt"),
        // looking at the sky over the far stand: no pitch
        (
            BroadcastCamera {
                tilt: 0.01,
                pan: 1.4,
                ..ok
            },
            "pitch covers",
        ),
        (
            BroadcastCamera {
                pan: f64::NAN,
                ..ok
            },
            "not finite",
        ),
    ];
    for (c, want) in cases {
        let e = c.check().unwrap_err().to_string();
        assert!(e.contains(want), "{e} should say {want}");
    }
}

#[test]
fn a_homography_that_is_no_camera_is_refused() {
    // an affine map (no perspective) of a tilted plane: no real focal length
    let m = [[10.0, 0.0, 0.0], [0.0, 10.0, 0.0], [0.0, 0.0, 1.0]];
    assert!(
        BroadcastCamera::from_homography(&m, 1280, 720).is_err()
            || BroadcastCamera::from_homography(&m, 1280, 720)
                .unwrap()
                .check()
                .is_err()
    );
}

/// The projector (matrices once) and the angle-grid matrix give exactly what the camera's own
/// per-call methods give: the line fits and searches use them as plain speedups.
#[test]
fn the_projector_and_the_angle_grid_matrix_are_the_cameras_own() {
    let c = main_camera();
    let p = c.projector();
    assert_eq!(p.m, c.image_from_pitch_matrix());
    let at = c.image_from_pitch_matrix_at(c.pan.sin_cos(), c.tilt.sin_cos(), c.roll.sin_cos());
    assert_eq!(at, c.image_from_pitch_matrix());
    for (x, y) in [
        (52.5, 34.0),
        (0.0, 0.0),
        (105.0, 68.0),
        (52.5, 300.0),
        (52.5, -500.0),
    ] {
        let q = Point::new(x, y);
        assert_eq!(p.project(q), c.project(q), "{q:?}");
    }
    // pixels above and below the horizon
    for (u, v) in [
        (640.0, 360.0),
        (0.0, 0.0),
        (1280.0, 720.0),
        (640.0, -2000.0),
    ] {
        let px = Point::new(u, v);
        let (right, down, fwd) = c.axes();
        let ray = add(
            fwd,
            add(
                scale(right, (u - 640.0) / c.focal_px),
                scale(down, (v - 360.0) / c.focal_px),
            ),
        );
        assert_eq!(p.ray_hits_ground(px), ray[2] < -1e-9, "{px:?}");
    }
    assert!(p.ray_hits_ground(Point::new(640.0, 360.0)));
    assert!(!p.ray_hits_ground(Point::new(640.0, -2000.0)));
}

#[test]
fn a_point_in_space_lies_on_the_ray_through_its_pixel() {
    let cam = main_camera();
    for p in [[30.0, 20.0, 0.0], [70.0, 40.0, 6.5], [52.0, 5.0, 14.0]] {
        let px = cam.project_3d(p).unwrap();
        if p[2] == 0.0 {
            let ground = cam.project(Point::new(p[0], p[1])).unwrap();
            assert!(ground.distance(&px) < 1e-6, "{ground:?} {px:?}");
        }
        let d = cam.ray(px);
        let rel = [
            p[0] - cam.position[0],
            p[1] - cam.position[1],
            p[2] - cam.position[2],
        ];
        let off = cross(rel, d);
        assert!(dot(off, off).sqrt() < 1e-6, "{p:?}: {off:?}");
        assert!(dot(rel, d) > 0.0 && (dot(d, d) - 1.0).abs() < 1e-12);
    }
    // behind the camera
    assert!(cam.project_3d([52.4, 200.0, 10.0]).is_none());
}
