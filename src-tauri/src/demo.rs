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

/// On an empty database, creates the synthetic demo match (calibrated) and starts it. Failures
/// are logged: the system runs without a demo.
pub async fn start(api: &sportz_api::Api) {
    let store = &api.state.store;
    match store
        .list_matches(sportz_store::MatchFilter::default())
        .await
    {
        Ok(p) if p.items.is_empty() => {}
        Ok(_) => return,
        Err(e) => return tracing::warn!("no demo match: {e}"),
    }
    let mut new = sportz_store::NewMatch::new("Demo match (synthetic)", "Reds", "Blues");
    new.competition = Some("sportz demo".to_owned());
    new.video_source = Some(sportz_contract::worker::VideoSource::Synthetic(1));
    let created = match store.create_match(new).await {
        Ok(m) => m,
        Err(e) => return tracing::warn!("no demo match: {e}"),
    };
    match calibration() {
        Ok(pairs) => {
            if let Err(e) = store.set_calibration(created.id, pairs).await {
                tracing::warn!("the demo match runs uncalibrated: {e}");
            }
        }
        Err(e) => tracing::warn!("the demo match runs uncalibrated: {e}"),
    }
    match sportz_api::sessions::act(&api.state, created.id, sportz_api::sessions::Action::Start)
        .await
    {
        Ok(_) => tracing::info!(match_id = %created.id, "started the synthetic demo match"),
        Err(e) => tracing::warn!("the demo match did not start: {e}"),
    }
}
