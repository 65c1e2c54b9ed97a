//! Class names (from a model's `names` metadata or a sidecar file) and their mapping to the
//! contract's [`ObjectClass`].

use sportz_contract::ObjectClass;

use super::DetectError;

/// The 80 COCO class names, for models that carry no names (the official YOLOX exports).
pub const COCO80: [&str; 80] = [
    "person",
    "bicycle",
    "car",
    "motorcycle",
    "airplane",
    "bus",
    "train",
    "truck",
    "boat",
    "traffic light",
    "fire hydrant",
    "stop sign",
    "parking meter",
    "bench",
    "bird",
    "cat",
    "dog",
    "horse",
    "sheep",
    "cow",
    "elephant",
    "bear",
    "zebra",
    "giraffe",
    "backpack",
    "umbrella",
    "handbag",
    "tie",
    "suitcase",
    "frisbee",
    "skis",
    "snowboard",
    "sports ball",
    "kite",
    "baseball bat",
    "baseball glove",
    "skateboard",
    "surfboard",
    "tennis racket",
    "bottle",
    "wine glass",
    "cup",
    "fork",
    "knife",
    "spoon",
    "bowl",
    "banana",
    "apple",
    "sandwich",
    "orange",
    "broccoli",
    "carrot",
    "hot dog",
    "pizza",
    "donut",
    "cake",
    "chair",
    "couch",
    "potted plant",
    "bed",
    "dining table",
    "toilet",
    "tv",
    "laptop",
    "mouse",
    "remote",
    "keyboard",
    "cell phone",
    "microwave",
    "oven",
    "toaster",
    "sink",
    "refrigerator",
    "book",
    "clock",
    "vase",
    "scissors",
    "teddy bear",
    "hair drier",
    "toothbrush",
];

/// Parses the `names` metadata of an Ultralytics export (a Python dict literal such as
/// `{0: 'person', 1: 'sports ball'}`), a JSON object `{"0": "person"}` or a list `['a', 'b']`.
/// The keys must be `0..n` (in any order).
pub fn parse_names_metadata(text: &str) -> Result<Vec<String>, DetectError> {
    let bad = |reason: String| DetectError::BadNames {
        reason,
        text: text.chars().take(80).collect(),
    };
    let t = text.trim();
    let (open, close) = match t.chars().next() {
        Some('{') => ('{', '}'),
        Some('[') => ('[', ']'),
        _ => {
            return Err(bad(
                "expected a dict `{0: 'name', …}` or a list `['name', …]`".into(),
            ));
        }
    };
    let inner = t
        .strip_prefix(open)
        .and_then(|s| s.strip_suffix(close))
        .ok_or_else(|| bad(format!("expected it to end with `{close}`")))?;
    let mut chars = inner.chars().peekable();
    let mut entries: Vec<(usize, String)> = Vec::new();
    let mut index = 0usize;
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace() || *c == ',') {
            chars.next();
        }
        if chars.peek().is_none() {
            break;
        }
        let key = if open == '{' {
            let raw = if matches!(chars.peek(), Some('\'' | '"')) {
                read_quoted(&mut chars).map_err(&bad)?
            } else {
                let mut k = String::new();
                while chars.peek().is_some_and(char::is_ascii_digit) {
                    k.extend(chars.next());
                }
                k
            };
            let key: usize = raw
                .trim()
                .parse()
                .map_err(|_| bad(format!("expected an integer key, found `{raw}`")))?;
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            if chars.next() != Some(':') {
                return Err(bad(format!("expected `:` after key {key}")));
            }
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            key
        } else {
            index += 1;
            index - 1
        };
        let name = read_quoted(&mut chars).map_err(&bad)?;
        entries.push((key, name));
    }
    entries.sort_by_key(|(k, _)| *k);
    for (i, (k, _)) in entries.iter().enumerate() {
        if *k != i {
            return Err(bad(format!(
                "expected keys 0..{}, found key {k} at position {i}",
                entries.len()
            )));
        }
    }
    Ok(entries.into_iter().map(|(_, n)| n).collect())
}

fn read_quoted(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<String, String> {
    let quote = match chars.next() {
        Some(q @ ('\'' | '"')) => q,
        other => return Err(format!("expected a quoted name, found {other:?}")),
    };
    let mut out = String::new();
    loop {
        match chars.next() {
            Some('\\') => out.extend(chars.next()),
            Some(c) if c == quote => return Ok(out),
            Some(c) => out.push(c),
            None => return Err("unterminated quoted name".into()),
        }
    }
}

/// Parses a sidecar names file: one name a line, blank lines ignored.
#[must_use]
pub fn parse_names_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The contract class a detector class name stands for, if any (COCO person → player, sports
/// ball → ball; football models' player/goalkeeper/referee/ball).
#[must_use]
pub fn object_class_for(name: &str) -> Option<ObjectClass> {
    match name
        .trim()
        .to_ascii_lowercase()
        .replace(['_', '-'], " ")
        .as_str()
    {
        "person" | "player" | "players" | "field player" => Some(ObjectClass::Player),
        "sports ball" | "ball" | "football" | "soccer ball" => Some(ObjectClass::Ball),
        "goalkeeper" | "goalkeepers" | "goalie" => Some(ObjectClass::Goalkeeper),
        "referee" | "referees" => Some(ObjectClass::Referee),
        _ => None,
    }
}

/// Class id → contract class, for one model's names.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassMap {
    names: Vec<String>,
    classes: Vec<Option<ObjectClass>>,
}

impl ClassMap {
    #[must_use]
    pub fn from_names(names: Vec<String>) -> Self {
        let classes = names.iter().map(|n| object_class_for(n)).collect();
        Self { names, classes }
    }

    #[must_use]
    pub fn names(&self) -> &[String] {
        &self.names
    }

    #[must_use]
    pub fn class_of(&self, class_id: u32) -> Option<ObjectClass> {
        self.classes.get(class_id as usize).copied().flatten()
    }

    /// Whether any class maps to a contract class (a model that finds neither people nor balls is
    /// useless here).
    #[must_use]
    pub fn maps_anything(&self) -> bool {
        self.classes.iter().any(Option::is_some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expected: &[&str]) {
        let got = parse_names_metadata(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(got, expected, "{text}");
    }

    fn check_err(text: &str, needle: &str) {
        let err = parse_names_metadata(text).unwrap_err().to_string();
        assert!(err.contains(needle), "{text} → {err}");
    }

    #[test]
    fn parses_names_metadata() {
        check(
            "{0: 'person', 1: 'sports ball'}",
            &["person", "sports ball"],
        );
        check("{1: 'ball', 0: 'player'}", &["player", "ball"]);
        check(r#"{"0": "a", "1": "b"}"#, &["a", "b"]);
        check(r#"{0: "it's", 1: 'x'}"#, &["it's", "x"]);
        check(
            "['ball', 'goalkeeper', 'player', 'referee']",
            &["ball", "goalkeeper", "player", "referee"],
        );
        check("{}", &[]);
        check_err("person, ball", "expected a dict");
        check_err("{0: 'a', 2: 'b'}", "expected keys 0..2, found key 2");
        check_err("{0: 'a', x: 'b'}", "expected an integer key");
        check_err("{0: 'a}", "unterminated");
    }

    #[test]
    fn parses_sidecar_files() {
        assert_eq!(
            parse_names_lines("person\r\nbicycle\n\n"),
            ["person", "bicycle"]
        );
    }

    #[test]
    fn maps_names_to_contract_classes() {
        let cases = [
            ("person", Some(ObjectClass::Player)),
            ("sports ball", Some(ObjectClass::Ball)),
            ("Sports_Ball", Some(ObjectClass::Ball)),
            ("goalkeeper", Some(ObjectClass::Goalkeeper)),
            ("referee", Some(ObjectClass::Referee)),
            ("player", Some(ObjectClass::Player)),
            ("car", None),
        ];
        for (name, expected) in cases {
            assert_eq!(object_class_for(name), expected, "{name}");
        }
        let coco = ClassMap::from_names(COCO80.map(String::from).to_vec());
        assert_eq!(coco.class_of(0), Some(ObjectClass::Player));
        assert_eq!(coco.class_of(32), Some(ObjectClass::Ball));
        assert_eq!(coco.class_of(2), None);
        assert_eq!(coco.class_of(999), None);
        assert!(coco.maps_anything());
    }
}
