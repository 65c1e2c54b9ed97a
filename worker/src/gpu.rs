//! GPU figures for heartbeats and metrics when an NVIDIA GPU is present, read through
//! `nvidia-smi` (the NVML command-line front end that ships with the driver). Without the
//! driver there is no `nvidia-smi` and the figures are `null`; nothing is linked against NVML,
//! so the worker runs unchanged on machines without NVIDIA hardware.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use sportz_contract::GpuMetrics;

/// Parses one line of `--query-gpu=name,utilization.gpu,memory.used,memory.total,temperature.gpu
/// --format=csv,noheader,nounits`.
#[must_use]
pub fn parse_smi_line(line: &str) -> Option<GpuMetrics> {
    let f: Vec<&str> = line.split(',').map(str::trim).collect();
    if f.len() < 5 || f[0].is_empty() {
        return None;
    }
    let num = |s: &str| s.parse::<f64>().ok();
    Some(GpuMetrics {
        name: f[0].to_owned(),
        utilization_pct: num(f[1]),
        memory_used_mb: num(f[2]),
        memory_total_mb: num(f[3]),
        temperature_c: num(f[4]),
    })
}

/// The latest GPU figures, refreshed by [`GpuProbe::refresh`].
#[derive(Debug, Clone, Default)]
pub struct GpuProbe {
    last: Arc<Mutex<Option<GpuMetrics>>>,
}

impl GpuProbe {
    /// The last figures read (`None` without an NVIDIA GPU).
    #[must_use]
    pub fn current(&self) -> Option<GpuMetrics> {
        self.last
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Reads the first GPU's figures (at most 2 s).
    pub async fn refresh(&self) -> Option<GpuMetrics> {
        let out = tokio::time::timeout(
            Duration::from_secs(2),
            tokio::process::Command::new("nvidia-smi")
                .args([
                    "--query-gpu=name,utilization.gpu,memory.used,memory.total,temperature.gpu",
                    "--format=csv,noheader,nounits",
                ])
                .kill_on_drop(true)
                .output(),
        )
        .await;
        let gpu = match out {
            Ok(Ok(o)) if o.status.success() => parse_smi_line(
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .next()
                    .unwrap_or(""),
            ),
            _ => None,
        };
        gpu.clone_into(&mut self.last.lock().unwrap_or_else(PoisonError::into_inner));
        gpu
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smi_lines() {
        let g = parse_smi_line("NVIDIA H200, 37, 2048, 143771, 41").unwrap();
        assert_eq!(g.name, "NVIDIA H200");
        assert_eq!(
            (
                g.utilization_pct,
                g.memory_used_mb,
                g.memory_total_mb,
                g.temperature_c
            ),
            (Some(37.0), Some(2048.0), Some(143_771.0), Some(41.0))
        );
        let partial = parse_smi_line("Tesla T4, [N/A], 10, 15360, 50").unwrap();
        assert_eq!(partial.utilization_pct, None);
        assert!(parse_smi_line("").is_none());
        assert!(parse_smi_line("garbage").is_none());
    }
}
