//! The synthetic demo match: on an empty database the serving modes with a worker create it,
//! calibrate it from the synthetic camera's landmarks (what a user would click on its first
//! frame) and start it, so a first run shows something moving.

/// The calibration of the synthetic demo (seed 1, 1280×720 — the worker's synthetic source):
/// the pitch landmarks in view on its first frame.
fn calibration() -> anyhow::Result<Vec<sportz_contract::worker::PointPair>> {
    let cfg = sportz_synth::SynthConfig {
        width: 1280,
        height: 720,
        fps: 25,
        ..sportz_synth::SynthConfig::default()
    };
    let mut m = sportz_synth::SynthMatch::new(1, cfg)?;
    let _ = m.render_next();
    let pairs: Vec<_> = m.calibration().into_iter().map(Into::into).collect();
    anyhow::ensure!(pairs.len() >= 4, "only {} landmarks in view", pairs.len());
    Ok(pairs)
}

/// On an empty database, creates the synthetic demo match (calibrated) and starts it, through
/// the same API operations a user's requests go through (so `/ws` clients get `match_created`
/// and `match_updated`). Failures are logged: the system runs without a demo.
pub async fn start(api: &sportz_api::Api) {
    use sportz_api::service;
    let state = &api.state;
    match service::matches::list_matches(state, sportz_store::MatchFilter::default()).await {
        Ok(p) if p.items.is_empty() => {}
        Ok(_) => return,
        Err(e) => return tracing::warn!("no demo match: {e}"),
    }
    let mut new = sportz_store::NewMatch::new("Demo match (synthetic)", "Reds", "Blues");
    new.competition = Some("sportz demo".to_owned());
    new.video_source = Some(sportz_contract::worker::VideoSource::Synthetic(1));
    let created = match service::matches::create_match(state, new).await {
        Ok(m) => m,
        Err(e) => return tracing::warn!("no demo match: {e}"),
    };
    match calibration() {
        Ok(pairs) => {
            if let Err(e) = service::calibration::set_calibration(state, created.id, pairs).await {
                tracing::warn!("the demo match runs uncalibrated: {e}");
            }
        }
        Err(e) => tracing::warn!("the demo match runs uncalibrated: {e}"),
    }
    match service::sessions::act(state, created.id, service::sessions::Action::Start).await {
        Ok(_) => tracing::info!(match_id = %created.id, "started the synthetic demo match"),
        Err(e) => tracing::warn!("the demo match did not start: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use sportz_bus::{SubEvent, Topic};
    use sportz_contract::keys;

    /// The demo goes through the API's operations: `/ws` clients are told about the match, it is
    /// calibrated and a worker is asked to start it; a second start leaves a non-empty database
    /// alone.
    #[tokio::test]
    async fn the_demo_match_is_announced_calibrated_and_started() {
        let dir = tempfile::tempdir().unwrap();
        let bus = sportz_bus::ContractBus::new(Arc::new(sportz_bus::MemoryBus::new()));
        let store = sportz_store::open(&dir.path().join("t.sqlite3").display().to_string())
            .await
            .unwrap();
        let config = sportz_api::ApiConfig {
            operator_token: Some("t".into()),
            ..sportz_api::ApiConfig::default()
        };
        let shutdown = tokio_util::sync::CancellationToken::new();
        let api = sportz_api::Api::start(config, bus.clone(), store.clone(), shutdown.clone())
            .await
            .unwrap();
        let mut broadcasts = bus
            .raw()
            .subscribe(
                &[Topic::Channel(keys::MATCH_CENTRE_BROADCAST.to_owned())],
                64,
            )
            .await
            .unwrap();

        super::start(&api).await;

        let mut types = Vec::new();
        while let Ok(Some(SubEvent::Message(m))) =
            tokio::time::timeout(Duration::from_millis(500), broadcasts.next()).await
        {
            let v: serde_json::Value = serde_json::from_str(&m.payload).unwrap();
            if v["type"] == "match_created" {
                assert_eq!(v["data"]["name"], "Demo match (synthetic)", "{v}");
            }
            types.push(v["type"].as_str().unwrap_or_default().to_owned());
        }
        assert_eq!(
            types.first().map(String::as_str),
            Some("match_created"),
            "{types:?}"
        );
        assert!(types.iter().any(|t| t == "match_updated"), "{types:?}");
        let matches = store
            .list_matches(sportz_store::MatchFilter::default())
            .await
            .unwrap();
        assert_eq!(matches.items.len(), 1);
        let demo = &matches.items[0];
        assert!(demo.calibration.len() >= 4, "{:?}", demo.calibration);
        assert!(demo.current_session_id.is_some(), "not started: {demo:?}");

        super::start(&api).await;
        let again = store
            .list_matches(sportz_store::MatchFilter::default())
            .await
            .unwrap();
        assert_eq!(again.items.len(), 1, "a second demo was created");
        shutdown.cancel();
    }
}
