//! Boxes and points in pixels: the small geometry every other module shares.

/// An axis-aligned box `[x1, y1, x2, y2]` in pixels (x right, y down).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BBox {
    pub x1: f32,
    pub y1: f32,
    pub x2: f32,
    pub y2: f32,
}

impl BBox {
    #[must_use]
    pub const fn new(x1: f32, y1: f32, x2: f32, y2: f32) -> Self {
        Self { x1, y1, x2, y2 }
    }

    /// A box from its centre and size.
    #[must_use]
    pub fn from_cxcywh(cx: f32, cy: f32, w: f32, h: f32) -> Self {
        Self::new(cx - w / 2.0, cy - h / 2.0, cx + w / 2.0, cy + h / 2.0)
    }

    /// A box from its top-left corner and size (the MOT / soccertrack convention).
    #[must_use]
    pub fn from_ltwh(left: f32, top: f32, w: f32, h: f32) -> Self {
        Self::new(left, top, left + w, top + h)
    }

    #[must_use]
    pub fn width(&self) -> f32 {
        (self.x2 - self.x1).max(0.0)
    }

    #[must_use]
    pub fn height(&self) -> f32 {
        (self.y2 - self.y1).max(0.0)
    }

    #[must_use]
    pub fn area(&self) -> f32 {
        self.width() * self.height()
    }

    /// The centre `(x, y)`.
    #[must_use]
    pub fn centre(&self) -> (f32, f32) {
        ((self.x1 + self.x2) / 2.0, (self.y1 + self.y2) / 2.0)
    }

    /// The foot point: bottom centre `(x, y)`, where a player touches the ground.
    #[must_use]
    pub fn foot(&self) -> (f32, f32) {
        ((self.x1 + self.x2) / 2.0, self.y2)
    }

    /// Intersection over union, 0 when either box is empty.
    #[must_use]
    pub fn iou(&self, other: &Self) -> f32 {
        let w = (self.x2.min(other.x2) - self.x1.max(other.x1)).max(0.0);
        let h = (self.y2.min(other.y2) - self.y1.max(other.y1)).max(0.0);
        let inter = w * h;
        let union = self.area() + other.area() - inter;
        if union <= 0.0 { 0.0 } else { inter / union }
    }

    /// The box grown by `scale` of its width and height on every side (the buffered IoU of
    /// C-BIoU, which tolerates the irregular motion of sports).
    #[must_use]
    pub fn buffered(&self, scale: f32) -> Self {
        let (bw, bh) = (self.width() * scale, self.height() * scale);
        Self::new(self.x1 - bw, self.y1 - bh, self.x2 + bw, self.y2 + bh)
    }

    /// The box clamped to `0..=width`, `0..=height`.
    #[must_use]
    pub fn clamp_to(&self, width: f32, height: f32) -> Self {
        Self::new(
            self.x1.clamp(0.0, width),
            self.y1.clamp(0.0, height),
            self.x2.clamp(0.0, width),
            self.y2.clamp(0.0, height),
        )
    }

    /// `[x1, y1, x2, y2]` as f64 (the contract's `bbox`).
    #[must_use]
    pub fn to_array_f64(&self) -> [f64; 4] {
        [
            f64::from(self.x1),
            f64::from(self.y1),
            f64::from(self.x2),
            f64::from(self.y2),
        ]
    }

    /// Whether every coordinate is finite and the box is not inverted.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        [self.x1, self.y1, self.x2, self.y2]
            .iter()
            .all(|v| v.is_finite())
            && self.x2 >= self.x1
            && self.y2 >= self.y1
    }
}

/// A 2-D point in f64 (pixels or metres, as the name of the binding says).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    #[must_use]
    pub const fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }

    #[must_use]
    pub fn distance(&self, other: &Self) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_iou(a: [f32; 4], b: [f32; 4], expected: f32) {
        let a = BBox::new(a[0], a[1], a[2], a[3]);
        let b = BBox::new(b[0], b[1], b[2], b[3]);
        let got = a.iou(&b);
        assert!(
            (got - expected).abs() < 1e-6,
            "{a:?} ∩ {b:?}: {got} != {expected}"
        );
        assert!((b.iou(&a) - got).abs() < 1e-6, "iou is symmetric");
    }

    #[test]
    fn iou_cases() {
        check_iou([0., 0., 10., 10.], [0., 0., 10., 10.], 1.0);
        check_iou([0., 0., 10., 10.], [10., 0., 20., 10.], 0.0);
        check_iou([0., 0., 10., 10.], [5., 0., 15., 10.], 50.0 / 150.0);
        check_iou([0., 0., 10., 10.], [2., 2., 8., 8.], 36.0 / 100.0);
        check_iou([0., 0., 0., 0.], [0., 0., 0., 0.], 0.0);
        check_iou([0., 0., 10., 10.], [20., 20., 30., 30.], 0.0);
    }

    #[test]
    fn conversions() {
        assert_eq!(
            BBox::from_cxcywh(5., 5., 10., 4.),
            BBox::new(0., 3., 10., 7.)
        );
        assert_eq!(BBox::from_ltwh(1., 2., 3., 4.), BBox::new(1., 2., 4., 6.));
        assert_eq!(BBox::new(0., 0., 10., 20.).foot(), (5.0, 20.0));
        assert_eq!(
            BBox::new(-5., 3., 700., 900.).clamp_to(640., 360.),
            BBox::new(0., 3., 640., 360.)
        );
        assert!(!BBox::new(0., 0., f32::NAN, 1.).is_valid());
        assert_eq!(
            BBox::new(10., 10., 20., 30.).buffered(0.5),
            BBox::new(5., 0., 25., 40.)
        );
        assert!(!BBox::new(5., 0., 1., 1.).is_valid());
    }
}
