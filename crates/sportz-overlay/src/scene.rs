//! The plain data the overlay draws. It knows nothing of the contract: the caller turns its
//! frames into a [`Scene`].

/// A colour, straight (not premultiplied) alpha, 0–255 per channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgba(pub [u8; 4]);

impl Rgba {
    pub const WHITE: Self = Self([255, 255, 255, 255]);
    pub const BLACK: Self = Self([0, 0, 0, 255]);

    #[must_use]
    pub const fn rgb(r: u8, g: u8, b: u8) -> Self {
        Self([r, g, b, 255])
    }

    /// The same colour with alpha `a` (0–1).
    #[must_use]
    pub fn with_alpha(self, a: f32) -> Self {
        let [r, g, b, _] = self.0;
        let a = (a.clamp(0.0, 1.0) * 255.0).round() as u8;
        Self([r, g, b, a])
    }

    pub(crate) fn to_f32(self) -> [f32; 4] {
        self.0.map(|c| f32::from(c) / 255.0)
    }
}

/// One video frame, RGB8, `width × height × 3` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VideoImage {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
}

/// A player (or referee) box in video pixels, with its track id.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxMark {
    pub x1: f32,
    pub y1: f32,
    pub x2: f32,
    pub y2: f32,
    pub color: Rgba,
    /// Drawn above the box.
    pub label: Option<u32>,
}

/// A point in video pixels; `predicted` when the tracker filled it in without a detection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mark {
    pub x: f32,
    pub y: f32,
    pub predicted: bool,
}

/// A dot on the radar, in pitch metres from the top-left corner (x along the length).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RadarDot {
    pub x: f32,
    pub y: f32,
    pub color: Rgba,
}

/// The radar: a pitch drawn with its lines, and dots for the players and the ball.
#[derive(Debug, Clone, PartialEq)]
pub struct Radar {
    /// Metres, e.g. 105 × 68.
    pub length: f32,
    pub width: f32,
    pub dots: Vec<RadarDot>,
    /// The ball in pitch metres.
    pub ball: Option<(f32, f32)>,
}

/// Everything one overlay frame shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// The size of the video the marks are measured in; the video (or an empty pitch-coloured
    /// area when there is none) is fitted into the canvas keeping its aspect ratio.
    pub frame_size: (u32, u32),
    pub video: Option<VideoImage>,
    pub boxes: Vec<BoxMark>,
    pub ball: Option<Mark>,
    /// The ball's recent positions, oldest first; drawn fading, dashed where predicted.
    pub trail: Vec<Mark>,
    pub radar: Option<Radar>,
    /// The pitch model's lines as the frame's camera sees them, in video pixels (see
    /// [`crate::project_pitch_lines`]); empty when the frame has no camera.
    pub pitch_lines: Vec<crate::Polyline>,
    /// Whether [`Self::pitch_lines`] are drawn (on by default).
    pub show_pitch_lines: bool,
    /// Background where the video is not (letterbox bars, or everything with no video).
    pub background: Rgba,
}

impl Scene {
    /// An empty scene for a video of `width × height`.
    #[must_use]
    pub fn new(width: u32, height: u32) -> Self {
        Self {
            frame_size: (width, height),
            video: None,
            boxes: Vec::new(),
            ball: None,
            trail: Vec::new(),
            radar: None,
            pitch_lines: Vec::new(),
            show_pitch_lines: true,
            background: Rgba::rgb(16, 20, 24),
        }
    }
}
