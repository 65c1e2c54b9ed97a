//! A writer for tiny ONNX models whose outputs are constants, so tests and examples can load a
//! real model through ONNX Runtime without shipping a file or depending on an `onnx` package.
//!
//! The model has one float image input (`[1,3,h,w]`) and one `Constant` node per output; the
//! input is not read. Only the protobuf fields ONNX Runtime needs are written (ONNX IR 8,
//! opset 13).

/// One output of a tiny model: the shape it declares (negative = a symbolic dimension) and the
/// constant it produces (`values` laid out in `shape_at_run` order).
#[derive(Debug, Clone)]
pub struct ConstOutput {
    pub name: String,
    pub declared: Vec<i64>,
    pub shape_at_run: Vec<i64>,
    pub values: Vec<f32>,
}

impl ConstOutput {
    /// An output whose declared shape is the shape it produces.
    #[must_use]
    pub fn new(name: &str, shape: &[i64], values: Vec<f32>) -> Self {
        Self {
            name: name.to_owned(),
            declared: shape.to_vec(),
            shape_at_run: shape.to_vec(),
            values,
        }
    }
}

/// A tiny model's description.
#[derive(Debug, Clone)]
pub struct TinyModel {
    pub input_name: String,
    /// `(width, height)` of the image input.
    pub input: (u32, u32),
    pub outputs: Vec<ConstOutput>,
    /// Custom metadata (`names`, …).
    pub metadata: Vec<(String, String)>,
}

impl TinyModel {
    /// The serialised `ModelProto`.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut graph = Vec::new();
        for (i, o) in self.outputs.iter().enumerate() {
            let mut tensor = Vec::new();
            for d in &o.shape_at_run {
                varint_field(&mut tensor, 1, int(*d));
            }
            varint_field(&mut tensor, 2, 1); // FLOAT
            let raw: Vec<u8> = o.values.iter().flat_map(|v| v.to_le_bytes()).collect();
            bytes_field(&mut tensor, 9, &raw);

            let mut attr = Vec::new();
            bytes_field(&mut attr, 1, b"value");
            bytes_field(&mut attr, 5, &tensor);
            varint_field(&mut attr, 20, 4); // TENSOR

            let mut node = Vec::new();
            bytes_field(&mut node, 2, o.name.as_bytes());
            bytes_field(&mut node, 3, format!("const{i}").as_bytes());
            bytes_field(&mut node, 4, b"Constant");
            bytes_field(&mut node, 5, &attr);
            bytes_field(&mut graph, 1, &node);
        }
        bytes_field(&mut graph, 2, b"tiny");
        let (w, h) = self.input;
        bytes_field(
            &mut graph,
            11,
            &value_info(&self.input_name, &[1, 3, i64::from(h), i64::from(w)]),
        );
        for o in &self.outputs {
            bytes_field(&mut graph, 12, &value_info(&o.name, &o.declared));
        }

        let mut model = Vec::new();
        varint_field(&mut model, 1, 8); // ir_version
        bytes_field(&mut model, 2, b"sportz-inference tiny_onnx");
        bytes_field(&mut model, 7, &graph);
        let mut opset = Vec::new();
        bytes_field(&mut opset, 1, b"");
        varint_field(&mut opset, 2, 13);
        bytes_field(&mut model, 8, &opset);
        for (k, v) in &self.metadata {
            let mut entry = Vec::new();
            bytes_field(&mut entry, 1, k.as_bytes());
            bytes_field(&mut entry, 2, v.as_bytes());
            bytes_field(&mut model, 14, &entry);
        }
        model
    }
}

/// A `ValueInfoProto` of a float tensor; negative dims become symbolic (`d0`, `d1`, …).
fn value_info(name: &str, dims: &[i64]) -> Vec<u8> {
    let mut shape = Vec::new();
    for (i, d) in dims.iter().enumerate() {
        let mut dim = Vec::new();
        if *d >= 0 {
            varint_field(&mut dim, 1, int(*d));
        } else {
            bytes_field(&mut dim, 2, format!("d{i}").as_bytes());
        }
        bytes_field(&mut shape, 1, &dim);
    }
    let mut tensor_type = Vec::new();
    varint_field(&mut tensor_type, 1, 1); // FLOAT
    bytes_field(&mut tensor_type, 2, &shape);
    let mut type_proto = Vec::new();
    bytes_field(&mut type_proto, 1, &tensor_type);
    let mut info = Vec::new();
    bytes_field(&mut info, 1, name.as_bytes());
    bytes_field(&mut info, 2, &type_proto);
    info
}

// protobuf int64 is the two's complement bit pattern
const fn int(v: i64) -> u64 {
    v as u64
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn varint_field(out: &mut Vec<u8>, field: u64, v: u64) {
    varint(out, field << 3);
    varint(out, v);
}

fn bytes_field(out: &mut Vec<u8>, field: u64, bytes: &[u8]) {
    varint(out, (field << 3) | 2);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_follow_protobuf() {
        let check = |v: u64, want: &[u8]| {
            let mut out = Vec::new();
            varint(&mut out, v);
            assert_eq!(out, want, "{v}");
        };
        check(0, &[0]);
        check(1, &[1]);
        check(127, &[0x7f]);
        check(128, &[0x80, 0x01]);
        check(300, &[0xac, 0x02]);
        check(
            int(-1),
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
        );
    }

    #[test]
    fn a_model_starts_with_its_ir_version() {
        let m = TinyModel {
            input_name: "images".into(),
            input: (8, 8),
            outputs: vec![ConstOutput::new("out", &[1, 2], vec![0.0, 1.0])],
            metadata: vec![],
        };
        let bytes = m.to_bytes();
        assert_eq!(&bytes[..2], &[0x08, 8]);
        let needle = b"Constant";
        assert!(bytes.windows(needle.len()).any(|w| w == needle));
    }
}
