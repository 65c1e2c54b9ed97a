use super::*;

fn args(cmd: &Command) -> Vec<String> {
    cmd.get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn probe_output_is_parsed() {
    let p = parse_probe(
        r#"{"streams":[{"width":640,"height":360,"avg_frame_rate":"30000/1001","r_frame_rate":"30/1"}],"format":{"duration":"23.7"}}"#,
    )
    .unwrap();
    assert_eq!((p.width, p.height), (640, 360));
    assert!((p.fps - 29.97).abs() < 0.01);
    assert_eq!(p.duration, Some(23.7));
    let live = parse_probe(r#"{"streams":[{"width":1280,"height":720,"avg_frame_rate":"0/0","r_frame_rate":"25/1"}],"format":{}}"#).unwrap();
    assert_eq!((live.fps, live.duration), (25.0, None));
    let absurd =
        parse_probe(r#"{"streams":[{"width":8,"height":8,"avg_frame_rate":"90000/1"}]}"#).unwrap();
    assert_eq!(absurd.fps, 25.0);
    assert!(
        parse_probe(r#"{"streams":[]}"#)
            .unwrap_err()
            .contains("no video stream")
    );
    assert!(
        parse_probe(r#"{"streams":[{"width":0,"height":360}]}"#)
            .unwrap_err()
            .contains("width")
    );
    assert!(parse_probe("garbage").unwrap_err().contains("unreadable"));
}

#[test]
fn input_args_per_source() {
    let f = VideoSource::File("/v/a.mp4".into());
    assert_eq!(input_args(&f, 0.0, true), ["-re", "-i", "/v/a.mp4"]);
    assert_eq!(
        input_args(&f, 12.5, false),
        ["-ss", "12.500", "-i", "/v/a.mp4"]
    );
    let h = VideoSource::Http("http://h/x.m3u8".into());
    assert_eq!(
        input_args(&h, 0.0, true),
        ["-re", "-rw_timeout", "5000000", "-i", "http://h/x.m3u8"]
    );
    let r = VideoSource::Rtsp("rtsp://cam/1".into());
    assert_eq!(
        input_args(&r, 5.0, true),
        ["-rtsp_transport", "tcp+udp", "-i", "rtsp://cam/1"]
    );
    let d = VideoSource::Device("/dev/video0".into());
    assert_eq!(
        input_args(&d, 0.0, true),
        ["-f", "v4l2", "-i", "/dev/video0"]
    );
    let s = VideoSource::Srt("srt://h:9000".into());
    assert_eq!(input_args(&s, 3.0, true), ["-i", "srt://h:9000"]);
    assert!(input_args(&VideoSource::Synthetic(1), 0.0, true).is_empty());
}

#[test]
fn the_probe_asks_for_size_rate_and_duration_with_the_protocol_options() {
    let cmd = probe_command(&VideoSource::Rtsp("rtsp://cam/1".into()));
    assert_eq!(cmd.get_program(), FFPROBE);
    assert_eq!(
        args(&cmd).join(" "),
        "-v error -select_streams v:0 \
         -show_entries stream=width,height,avg_frame_rate,r_frame_rate:format=duration \
         -of json -rtsp_transport tcp+udp rtsp://cam/1"
    );
}

#[test]
fn the_decoder_writes_constant_rate_rgb24_at_the_probed_size() {
    let cmd = decode_command(
        &VideoSource::File("/v/a.mp4".into()),
        2.0,
        false,
        12.5,
        (640, 360),
    );
    assert_eq!(cmd.get_program(), FFMPEG);
    assert_eq!(
        args(&cmd).join(" "),
        "-hide_banner -loglevel error -nostdin -ss 2.000 -i /v/a.mp4 -map 0:v:0 -an -sn \
         -vf fps=12.5,scale=640:360 -f rawvideo -pix_fmt rgb24 -"
    );
}

#[test]
fn a_still_is_one_mjpeg_frame_at_the_time() {
    let cmd = still_command("/v/a.mp4", 1.25);
    assert_eq!(
        args(&cmd).join(" "),
        "-hide_banner -loglevel error -nostdin -ss 1.250 -i /v/a.mp4 \
         -frames:v 1 -f image2 -c:v mjpeg -"
    );
}

#[test]
fn encodes_read_raw_frames_from_stdin() {
    let plain = Encode::new(RawPixels::Rgba, 1280, 720, 25.0);
    assert_eq!(
        args(&plain.command(Path::new("/o/a.mp4"))).join(" "),
        "-hide_banner -loglevel error -nostdin -y -f rawvideo -pix_fmt rgba -s 1280x720 -r 25 \
         -i - -c:v libx264 -preset veryfast -crf 23 -pix_fmt yuv420p /o/a.mp4"
    );
    let web = Encode {
        preset: "medium",
        crf: 18,
        faststart: true,
        ..Encode::new(RawPixels::Rgb24, 320, 240, 12.5)
    };
    assert_eq!(
        args(&web.command(Path::new("m.mp4"))).join(" "),
        "-hide_banner -loglevel error -nostdin -y -f rawvideo -pix_fmt rgb24 -s 320x240 -r 12.5 \
         -i - -c:v libx264 -preset medium -crf 18 -pix_fmt yuv420p -r 12.5 -movflags +faststart \
         m.mp4"
    );
}
