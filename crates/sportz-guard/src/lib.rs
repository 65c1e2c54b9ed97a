//! The source guard: only known protocols, and (unless allowed) no URLs that resolve to private,
//! loopback or link-local hosts — a match's video URL may be submitted from the LAN, and the
//! worker (or the API reading a calibration still) must not become a way to probe the machine's
//! own network. Local files and capture devices are allowed (the desktop picks them).

use std::net::IpAddr;

use sportz_contract::worker::VideoSource;

/// What the guard allows. The default refuses private and loopback hosts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SourcePolicy {
    /// Allow URLs whose host resolves to loopback/private/link-local addresses.
    pub allow_private_hosts: bool,
}

/// Why a source was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceRefused {
    #[error("unsupported source `{0}`: expected {1}")]
    Protocol(String, &'static str),
    #[error("invalid url `{url}`: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("cannot resolve host `{0}`: {1}")]
    Unresolvable(String, String),
    #[error(
        "refusing `{url}`: its host resolves to the private or loopback address {addr} (set allow_private_sources to permit it)"
    )]
    PrivateHost { url: String, addr: IpAddr },
    #[error("no such file `{0}`")]
    NoFile(String),
}

/// Whether an address is loopback, private, link-local, unspecified or otherwise not public.
#[must_use]
pub fn is_private(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V4(a) => {
            a.is_loopback()
                || a.is_private()
                || a.is_link_local()
                || a.is_unspecified()
                || a.is_broadcast()
                || a.octets()[0] == 100 && (a.octets()[1] & 0xc0) == 64 // 100.64/10 CGNAT
        }
        IpAddr::V6(a) => {
            a.is_loopback()
                || a.is_unspecified()
                || (a.segments()[0] & 0xfe00) == 0xfc00 // unique local
                || (a.segments()[0] & 0xffc0) == 0xfe80 // link local
                || a.to_ipv4_mapped().is_some_and(|v4| is_private(IpAddr::V4(v4)))
        }
    }
}

fn expected_schemes(source: &VideoSource) -> (&'static [&'static str], &'static str) {
    match source {
        VideoSource::Http(_) => (&["http", "https"], "an http:// or https:// URL"),
        VideoSource::Rtmp(_) => (&["rtmp", "rtmps"], "an rtmp:// or rtmps:// URL"),
        VideoSource::Rtsp(_) => (&["rtsp", "rtsps"], "an rtsp:// or rtsps:// URL"),
        VideoSource::Srt(_) => (&["srt"], "an srt:// URL"),
        _ => (&[], ""),
    }
}

/// Checks a source before any process is started for it.
///
/// # Errors
/// [`SourceRefused`] saying what was expected.
pub async fn check(source: &VideoSource, policy: SourcePolicy) -> Result<(), SourceRefused> {
    match source {
        VideoSource::File(path) => {
            if std::path::Path::new(path).is_file() {
                Ok(())
            } else {
                Err(SourceRefused::NoFile(path.clone()))
            }
        }
        VideoSource::Device(dev) => {
            if dev.starts_with("/dev/") {
                Ok(())
            } else {
                Err(SourceRefused::Protocol(
                    dev.clone(),
                    "a capture device path such as /dev/video0",
                ))
            }
        }
        VideoSource::Synthetic(_) => Ok(()),
        VideoSource::Http(u)
        | VideoSource::Rtmp(u)
        | VideoSource::Rtsp(u)
        | VideoSource::Srt(u) => {
            let (schemes, expected) = expected_schemes(source);
            let url = url::Url::parse(u).map_err(|e| SourceRefused::BadUrl {
                url: u.clone(),
                reason: e.to_string(),
            })?;
            if !schemes.contains(&url.scheme()) {
                return Err(SourceRefused::Protocol(u.clone(), expected));
            }
            let host = url.host_str().ok_or_else(|| SourceRefused::BadUrl {
                url: u.clone(),
                reason: "no host".to_owned(),
            })?;
            if policy.allow_private_hosts {
                return Ok(());
            }
            let host = host.trim_start_matches('[').trim_end_matches(']');
            let port = url.port_or_known_default().unwrap_or(0);
            let addrs: Vec<IpAddr> = tokio::net::lookup_host((host, port))
                .await
                .map_err(|e| SourceRefused::Unresolvable(host.to_owned(), e.to_string()))?
                .map(|a| a.ip())
                .collect();
            if let Some(addr) = addrs.into_iter().find(|a| is_private(*a)) {
                return Err(SourceRefused::PrivateHost {
                    url: u.clone(),
                    addr,
                });
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_ranges() {
        let cases = [
            ("127.0.0.1", true),
            ("10.1.2.3", true),
            ("172.16.0.1", true),
            ("192.168.1.10", true),
            ("169.254.1.1", true),
            ("100.64.0.1", true),
            ("0.0.0.0", true),
            ("8.8.8.8", false),
            ("151.101.1.1", false),
            ("::1", true),
            ("fd00::1", true),
            ("fe80::1", true),
            ("::ffff:192.168.0.1", true),
            ("2a00:1450::1", false),
        ];
        for (a, want) in cases {
            assert_eq!(is_private(a.parse().unwrap()), want, "{a}");
        }
    }

    async fn refused(src: VideoSource, policy: SourcePolicy, needle: &str) {
        let err = check(&src, policy).await.unwrap_err().to_string();
        assert!(
            err.contains(needle),
            "{src:?}: `{err}` should mention `{needle}`"
        );
    }

    #[tokio::test]
    async fn guard_cases() {
        let strict = SourcePolicy::default();
        let open = SourcePolicy {
            allow_private_hosts: true,
        };
        refused(
            VideoSource::Http("ftp://x/y".into()),
            strict,
            "expected an http://",
        )
        .await;
        refused(
            VideoSource::Rtmp("http://x/y".into()),
            strict,
            "expected an rtmp://",
        )
        .await;
        refused(VideoSource::Http("not a url".into()), strict, "invalid url").await;
        refused(
            VideoSource::Http("http://127.0.0.1:8080/a.m3u8".into()),
            strict,
            "loopback",
        )
        .await;
        refused(
            VideoSource::Rtsp("rtsp://192.168.1.5/cam".into()),
            strict,
            "192.168.1.5",
        )
        .await;
        refused(
            VideoSource::Http("http://localhost/x".into()),
            strict,
            "private or loopback",
        )
        .await;
        refused(
            VideoSource::File("/nonexistent/match.mp4".into()),
            strict,
            "no such file",
        )
        .await;
        refused(VideoSource::Device("video0".into()), strict, "/dev/video0").await;
        check(
            &VideoSource::Http("http://127.0.0.1:8080/a.m3u8".into()),
            open,
        )
        .await
        .unwrap();
        check(&VideoSource::Synthetic(1), strict).await.unwrap();
        let f = tempfile::NamedTempFile::new().unwrap();
        check(&VideoSource::File(f.path().display().to_string()), strict)
            .await
            .unwrap();
    }
}
