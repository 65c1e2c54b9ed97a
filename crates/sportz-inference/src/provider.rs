//! [`Provider`]: the ONNX Runtime execution providers, their default order, their names on the
//! command line and the device each runs on.

use std::fmt;

use ort::ep::{self, ExecutionProvider, ExecutionProviderDispatch};

/// An execution provider, in the order they are tried by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    Cuda,
    TensorRt,
    DirectMl,
    CoreMl,
    Cpu,
}

impl Provider {
    /// CUDA → TensorRT → DirectML → CoreML → CPU.
    pub const DEFAULT_ORDER: [Self; 5] = [
        Self::Cuda,
        Self::TensorRt,
        Self::DirectMl,
        Self::CoreMl,
        Self::Cpu,
    ];

    /// The short name used in options and logs (`cuda`, `tensorrt`, `directml`, `coreml`, `cpu`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Cuda => "cuda",
            Self::TensorRt => "tensorrt",
            Self::DirectMl => "directml",
            Self::CoreMl => "coreml",
            Self::Cpu => "cpu",
        }
    }

    /// The device string reported in heartbeats and metrics (`cpu`, `cuda:0`, …).
    #[must_use]
    pub fn device(self, device_id: i32) -> String {
        match self {
            Self::Cpu | Self::CoreMl => self.name().to_owned(),
            Self::Cuda | Self::TensorRt | Self::DirectMl => format!("{}:{device_id}", self.name()),
        }
    }

    /// Whether the loaded ONNX Runtime was built with this provider (CPU always is).
    #[must_use]
    pub fn compiled_in(self) -> bool {
        let r = match self {
            Self::Cpu => return true,
            Self::Cuda => ep::CUDA::is_available(),
            Self::TensorRt => ep::TensorRT::is_available(),
            Self::DirectMl => ep::DirectML::is_available(),
            Self::CoreMl => ep::CoreML::is_available(),
        };
        r.unwrap_or(false)
    }

    pub(crate) fn dispatch(self, device_id: i32) -> ExecutionProviderDispatch {
        let d = match self {
            Self::Cuda => ep::CUDA::default().with_device_id(device_id).build(),
            Self::TensorRt => ep::TensorRT::default().with_device_id(device_id).build(),
            Self::DirectMl => ep::DirectML::default().with_device_id(device_id).build(),
            Self::CoreMl => ep::CoreML::default().build(),
            Self::Cpu => ep::CPU::default().build(),
        };
        d.error_on_failure()
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Provider {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cuda" => Ok(Self::Cuda),
            "tensorrt" | "trt" => Ok(Self::TensorRt),
            "directml" | "dml" => Ok(Self::DirectMl),
            "coreml" => Ok(Self::CoreMl),
            "cpu" => Ok(Self::Cpu),
            other => Err(format!(
                "unknown execution provider `{other}`, expected one of cuda, tensorrt, directml, coreml, cpu"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn providers_parse_and_name_their_devices() {
        assert_eq!("CUDA".parse::<Provider>(), Ok(Provider::Cuda));
        assert_eq!("trt".parse::<Provider>(), Ok(Provider::TensorRt));
        assert!("tpu".parse::<Provider>().unwrap_err().contains("tpu"));
        assert_eq!(Provider::Cuda.device(1), "cuda:1");
        assert_eq!(Provider::Cpu.device(0), "cpu");
        assert_eq!(Provider::DEFAULT_ORDER.last(), Some(&Provider::Cpu));
    }
}
