//! The ball's flight fitted again over a `sportz track` JSONL, frame by frame: for each frame
//! with a detected ball and a camera, the flight the sightings so far show (height, the place
//! under the ball and how sure it is) — to see why a ball in the air was published without a
//! place. The camera of each frame is recovered from its published homography.
//!
//! ```text
//! cargo run --release -p sportz-vision --example flight_replay -- run.jsonl [FROM TO]
//! ```

use std::io::{BufRead, BufReader};

use serde_json::Value;
use sportz_contract::frame::FrameData;
use sportz_vision::Point;
use sportz_vision::ball::flight::{Flight, FlightConfig, Sighting};
use sportz_vision::camera::BroadcastCamera;
use sportz_vision::frame::published_image_from_pitch;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: flight_replay RUN.jsonl [FROM TO] (the output of `sportz track`)")?;
    let from: u64 = args.next().map_or(Ok(0), |a| a.parse())?;
    let to: u64 = args.next().map_or(Ok(u64::MAX), |a| a.parse())?;
    let mut flight = Flight::new(FlightConfig::default());
    let mut track = None;
    for line in BufReader::new(std::fs::File::open(&path)?).lines() {
        let message: Value = serde_json::from_str(&line?)?;
        if message["type"] != "frame" {
            continue;
        }
        let frame: FrameData = serde_json::from_value(message["data"].clone())?;
        let camera = published_image_from_pitch(&frame).and_then(|h| {
            BroadcastCamera::from_homography(&h.matrix(), frame.width, frame.height).ok()
        });
        let Some(cam) = camera else {
            flight.clear();
            continue;
        };
        // a frame without the ball keeps the flight, as the tracker's coasting does
        let Some(ball) = frame.ball.as_ref() else {
            continue;
        };
        if track != Some(ball.track_id) {
            flight.clear();
            track = Some(ball.track_id);
        }
        if ball.predicted {
            continue;
        }
        let (x1, y1, x2, y2) = (ball.bbox[0], ball.bbox[1], ball.bbox[2], ball.bbox[3]);
        let centre = Point::new((x1 + x2) / 2.0, (y1 + y2) / 2.0);
        flight.push(Sighting {
            t: frame.video_timestamp,
            origin: cam.position,
            dir: cam.ray(centre),
            focal_px: cam.focal_px,
        });
        if !(from..=to).contains(&frame.frame_number) {
            continue;
        }
        match flight.airborne() {
            Some(a) => println!(
                "{} air h {:.1} under ({:.1}, {:.1}) spread {:.1} m over {} sightings",
                frame.frame_number, a.height_m, a.ground.0, a.ground.1, a.spread_m, a.sightings
            ),
            None => println!("{} - ({} sightings)", frame.frame_number, flight.len()),
        }
    }
    Ok(())
}
