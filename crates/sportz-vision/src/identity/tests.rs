use super::*;

fn obs(tracker_id: u64, x: f64, y: f64) -> Observed {
    Observed {
        tracker_id,
        pitch: Some(Point::new(x, y)),
        class: Some(ObjectClass::Player),
        side: None,
        side_ambiguity: 0.0,
    }
}

fn no_team(_: u64) -> Option<TeamSide> {
    None
}

#[test]
fn continuing_tracks_keep_their_ids() {
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    let a = k.assign(0.0, &[obs(7, 10.0, 10.0), obs(9, 20.0, 20.0)], no_team);
    assert_eq!(a.ids, vec![1, 2]);
    let b = k.assign(0.04, &[obs(9, 20.1, 20.0), obs(7, 10.1, 10.0)], no_team);
    assert_eq!(b.ids, vec![2, 1]);
    assert!(b.superseded.is_empty() && b.recovered.is_empty());
}

#[test]
fn a_player_back_where_he_could_be_is_the_same_player() {
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    k.assign(0.0, &[obs(7, 10.0, 10.0), obs(9, 40.0, 20.0)], no_team);
    // 7 leaves the picture; 2 s later a new track 5 m away (radius 1.5 + 4·2 = 9.5 m)
    k.assign(1.0, &[obs(9, 40.0, 20.0)], no_team);
    let back = k.assign(3.0, &[obs(9, 40.0, 20.0), obs(12, 14.0, 13.0)], no_team);
    assert_eq!(back.ids, vec![2, 1]);
    assert_eq!(back.superseded, vec![7]);
    assert_eq!(back.recovered, vec![(1, 3.0)]);
    // and the new tracker id keeps it
    assert_eq!(k.assign(3.04, &[obs(12, 14.0, 13.1)], no_team).ids, vec![1]);
}

#[test]
fn too_far_too_late_or_the_other_team_is_someone_else() {
    let cfg = IdentityConfig::default();
    // too far for the time away
    let mut k = IdentityKeeper::new(cfg);
    k.assign(0.0, &[obs(7, 10.0, 10.0)], no_team);
    assert_eq!(k.assign(1.0, &[obs(8, 30.0, 10.0)], no_team).ids, vec![2]);
    // away longer than max_gap_secs
    let mut k = IdentityKeeper::new(cfg);
    k.assign(0.0, &[obs(7, 10.0, 10.0)], no_team);
    let late = cfg.max_gap_secs + 0.5;
    assert_eq!(k.assign(late, &[obs(8, 10.0, 10.0)], no_team).ids, vec![2]);
    // the shirt says the other side (3 m away: within the 5.5 m radius, beyond the 1.5 m
    // where a mismatch is overruled)
    let mut k = IdentityKeeper::new(cfg);
    k.assign(0.0, &[obs(7, 10.0, 10.0)], no_team);
    let away = Observed {
        side: Some(TeamSide::Away),
        ..obs(8, 13.0, 10.0)
    };
    let home = |_: u64| Some(TeamSide::Home);
    assert_eq!(k.assign(1.0, &[away], home).ids, vec![2]);
    // a referee is not taken for a player
    let mut k = IdentityKeeper::new(cfg);
    k.assign(0.0, &[obs(7, 10.0, 10.0)], no_team);
    let referee = Observed {
        class: Some(ObjectClass::Referee),
        ..obs(8, 12.0, 10.0)
    };
    assert_eq!(k.assign(1.0, &[referee], no_team).ids, vec![2]);
}

#[test]
fn one_frame_classed_a_referee_does_not_make_a_player_a_referee() {
    // seed 22013: a player by the touchline, classed a referee in his last frame before he
    // vanished, comes back 3 m away (beyond where a role mismatch is overruled) as a player
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    for i in 0..10 {
        k.assign(f64::from(i) * 0.04, &[obs(7, 70.0, 1.0)], no_team);
    }
    let referee = Observed {
        class: Some(ObjectClass::Referee),
        ..obs(7, 70.0, 1.0)
    };
    k.assign(0.4, &[referee], no_team);
    assert_eq!(k.assign(1.0, &[obs(8, 67.0, 1.0)], no_team).ids, vec![1]);
    // while a referee seen as one stays one: a player's track 3 m away is not him
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    for i in 0..10 {
        k.assign(f64::from(i) * 0.04, &[referee], no_team);
    }
    k.assign(0.4, &[obs(7, 70.0, 1.0)], no_team);
    assert_eq!(k.assign(1.0, &[obs(8, 67.0, 1.0)], no_team).ids, vec![2]);
}

#[test]
fn a_side_or_role_read_from_one_frame_does_not_turn_the_player_away_where_he_vanished() {
    let cfg = IdentityConfig::default();
    let home = |id: u64| (id == 1).then_some(TeamSide::Home);
    // seed 10111's frame 687: the new track 0.8 m from where the home player vanished, its
    // first shirt read as away, unclearly (kits close in colour: ambiguity 0.53)
    let away = |ambiguity| Observed {
        side: Some(TeamSide::Away),
        side_ambiguity: ambiguity,
        ..obs(8, 10.8, 10.0)
    };
    let mut k = IdentityKeeper::new(cfg);
    k.assign(0.0, &[obs(7, 10.0, 10.0)], home);
    let back = k.assign(0.2, &[away(0.53)], home);
    assert_eq!(back.ids, vec![1]);
    assert_eq!(back.recovered, vec![(1, 0.2)]);
    // a clear reading (seed 99103: two players of opposite sides in one spot) still says
    // someone else
    let mut k = IdentityKeeper::new(cfg);
    k.assign(0.0, &[obs(7, 10.0, 10.0)], home);
    assert_eq!(k.assign(0.2, &[away(0.08)], home).ids, vec![2]);
    // and an unclear one beyond 1.5 m too
    let mut k = IdentityKeeper::new(cfg);
    k.assign(0.0, &[obs(7, 10.0, 10.0)], home);
    let far = Observed {
        pitch: Some(Point::new(12.0, 10.0)),
        ..away(0.53)
    };
    assert_eq!(k.assign(0.2, &[far], home).ids, vec![2]);
    // seed 55021's linesman: his new track's first detections say "player"
    let mut k = IdentityKeeper::new(cfg);
    let referee = |id| Observed {
        class: Some(ObjectClass::Referee),
        ..obs(id, 25.0, 65.0)
    };
    k.assign(0.0, &[referee(3)], no_team);
    assert_eq!(k.assign(0.4, &[obs(4, 25.4, 65.0)], no_team).ids, vec![1]);
    // an identity that agrees beats one that does not, even a little farther: the home
    // player 1.2 m away, the away player 0.5 m away, both vanished a moment ago
    let sides = |id: u64| {
        Some(if id == 1 {
            TeamSide::Home
        } else {
            TeamSide::Away
        })
    };
    for (side, id) in [(TeamSide::Away, 2), (TeamSide::Home, 1)] {
        let mut k = IdentityKeeper::new(cfg);
        k.assign(0.0, &[obs(7, 10.0, 10.0), obs(9, 11.7, 10.0)], sides);
        let new = Observed {
            side: Some(side),
            side_ambiguity: 0.5,
            ..obs(20, 11.2, 10.0)
        };
        assert_eq!(k.assign(0.3, &[new], sides).ids, vec![id], "{side:?}");
    }
}

#[test]
fn a_lone_track_takes_the_likelier_of_two_vanished_players() {
    // both vanish; a new track nearer the first
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    k.assign(0.0, &[obs(7, 10.0, 10.0), obs(8, 14.0, 10.0)], no_team);
    assert_eq!(k.assign(1.0, &[obs(20, 11.0, 10.0)], no_team).ids, vec![1]);
    // at the same distance, one seen a moment ago beats one gone for 5 s, whose radius
    // (21.5 m) reaches almost anywhere
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    k.assign(0.0, &[obs(7, 30.0, 10.0), obs(8, 50.0, 10.0)], no_team);
    k.assign(4.96, &[obs(8, 31.0, 10.0)], no_team);
    assert_eq!(k.assign(5.0, &[obs(21, 30.5, 10.0)], no_team).ids, vec![2]);
}

/// Four team-mates at `x`, spread across the pitch's width (tracker ids 1–4).
fn block(x: f64) -> Vec<Observed> {
    (1..=4).map(|i| obs(i, x, 10.0 + 12.0 * i as f64)).collect()
}

#[test]
fn a_player_away_is_looked_for_where_the_play_has_taken_him() {
    // A (tracker 10) and B (11) leave the picture; while they are away the play moves 20 m up
    // the pitch at 4 m/s, and a new track comes back where B was last seen. Moved with the
    // play, A is looked for at x = 40 (1 m away) and B at x = 60: it is A.
    let run = |cfg: IdentityConfig| {
        let mut k = IdentityKeeper::new(cfg);
        let mut start = block(20.0);
        start.extend([obs(10, 20.0, 30.0), obs(11, 40.0, 30.0)]);
        let first = k.assign(0.0, &start, no_team);
        for n in 1..125 {
            k.assign(
                f64::from(n) * 0.04,
                &block(20.0 + 0.16 * f64::from(n)),
                no_team,
            );
        }
        let mut back = block(40.0);
        back.push(obs(12, 40.0, 31.0));
        let ids = k.assign(5.0, &back, no_team).ids;
        (first.ids[4], first.ids[5], ids[4])
    };
    let (a, _, back) = run(IdentityConfig::default());
    assert_eq!(back, a);
    // where they were last seen, it would have been B
    let (_, b, back) = run(IdentityConfig {
        play_shift: 0.0,
        ..IdentityConfig::default()
    });
    assert_eq!(back, b);
    // too few players seen for a drift: B as well
    let (_, b, back) = run(IdentityConfig {
        drift_min_players: 5,
        ..IdentityConfig::default()
    });
    assert_eq!(back, b);
    // the whole block jumping 20 m in a frame (a wrong camera) is no drift
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    let mut start = block(20.0);
    start.extend([obs(10, 20.0, 30.0), obs(11, 40.0, 30.0)]);
    let first = k.assign(0.0, &start, no_team);
    k.assign(0.04, &block(40.0), no_team);
    let mut back = block(40.0);
    back.push(obs(12, 40.0, 31.0));
    assert_eq!(k.assign(5.0, &back, no_team).ids[4], first.ids[5]);
}

#[test]
fn an_identity_on_screen_is_not_taken_and_without_a_camera_ids_are_fresh() {
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    k.assign(0.0, &[obs(7, 10.0, 10.0)], no_team);
    // 7 is still there: a new track beside it is someone else
    assert_eq!(
        k.assign(0.04, &[obs(7, 10.0, 10.0), obs(8, 10.5, 10.0)], no_team)
            .ids,
        vec![1, 2]
    );
    let blind = Observed {
        pitch: None,
        ..obs(9, 0.0, 0.0)
    };
    assert_eq!(k.assign(1.0, &[blind], no_team).ids, vec![3]);
}

fn blind(tracker_id: u64) -> Observed {
    Observed {
        pitch: None,
        ..obs(tracker_id, 0.0, 0.0)
    }
}

#[test]
fn a_track_first_seen_without_a_camera_takes_the_vanished_identity_once_it_is_back() {
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    k.assign(0.0, &[obs(7, 10.0, 10.0), obs(9, 40.0, 20.0)], no_team);
    // a cut: the tracker starts over, and the shot's first frame has no camera
    let cut = k.assign(0.04, &[blind(21), blind(22)], no_team);
    assert_eq!(cut.ids, vec![3, 4], "provisional fresh ids");
    // the next frame has the camera: both take their identities back
    let back = k.assign(0.08, &[obs(21, 10.2, 10.0), obs(22, 40.1, 20.0)], no_team);
    assert_eq!(back.ids, vec![1, 2]);
    let mut superseded = back.superseded.clone();
    superseded.sort_unstable();
    assert_eq!(superseded, vec![7, 9]);
    // and keep them; the provisional ids are gone for good
    let on = k.assign(0.12, &[obs(21, 10.3, 10.0), obs(22, 40.2, 20.0)], no_team);
    assert_eq!(on.ids, vec![1, 2]);
    assert!(on.superseded.is_empty());
    let new = k.assign(0.16, &[obs(21, 10.3, 10.0), obs(30, 80.0, 60.0)], no_team);
    assert_eq!(new.ids, vec![1, 5]);
}

#[test]
fn an_id_seen_with_a_camera_is_not_provisional_and_keeps_its_place_without_one() {
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    k.assign(0.0, &[obs(7, 10.0, 10.0), obs(9, 40.0, 20.0)], no_team);
    // a frame without a camera: 7 is seen, but its last position stays (10, 10) at t = 0
    k.assign(0.04, &[blind(7), blind(9)], no_team);
    // 7 vanishes; a new track near where it was 2 s later takes its id
    k.assign(1.0, &[obs(9, 40.0, 20.0)], no_team);
    let back = k.assign(2.0, &[obs(9, 40.0, 20.0), obs(12, 14.0, 13.0)], no_team);
    assert_eq!(back.ids, vec![2, 1]);
    // 9 had a pitch position: a vanished identity never replaces its id
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    k.assign(0.0, &[obs(7, 10.0, 10.0), obs(9, 11.0, 10.0)], no_team);
    k.assign(0.5, &[obs(9, 11.0, 10.0)], no_team);
    assert_eq!(k.assign(1.0, &[obs(9, 10.5, 10.0)], no_team).ids, vec![2]);
}

#[test]
fn a_group_back_after_a_cut_is_matched_as_a_group() {
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    k.assign(0.0, &[obs(7, 10.0, 10.0), obs(8, 13.0, 10.0)], no_team);
    // a cut: 1 s later both are back, each moved 2 m to the right, so the first new track is
    // nearer the second player's old place (1 m) than its own (2 m): one track at a time would
    // call that ambiguous and hand out fresh ids
    let back = k.assign(1.0, &[obs(20, 12.0, 10.0), obs(21, 15.0, 10.0)], no_team);
    assert_eq!(back.ids, vec![1, 2]);
    let mut superseded = back.superseded.clone();
    superseded.sort_unstable();
    assert_eq!(superseded, vec![7, 8]);
}

#[test]
fn a_player_seen_before_a_cut_is_looked_for_a_little_wider() {
    // seen at (10, 10); 0.6 s later a new track 4.5 m away: beyond the radius (1.5 + 4 · 0.6 =
    // 3.9 m) within one shot, within it (+ 3 m) when the picture cut in between
    let run = |cut: bool| {
        let mut k = IdentityKeeper::new(IdentityConfig::default());
        k.assign(0.0, &[obs(7, 10.0, 10.0)], no_team);
        if cut {
            k.cut(0.5);
        }
        k.assign(0.6, &[obs(8, 14.5, 10.0)], no_team).ids
    };
    assert_eq!(run(false), vec![2]);
    assert_eq!(run(true), vec![1]);
    // the slack does not widen the radius past its cap: after 10 s away, 26 m is too far
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    k.assign(0.0, &[obs(7, 10.0, 10.0), obs(9, 60.0, 10.0)], no_team);
    k.assign(9.9, &[obs(9, 60.0, 10.0)], no_team);
    k.cut(9.95);
    assert_eq!(k.assign(10.0, &[obs(8, 36.0, 10.0)], no_team).ids, vec![3]);
}

#[test]
fn a_group_that_moved_unseen_over_a_cut_is_found_moved() {
    // five players 6 m apart; a close-up; 1 s later the same five, each 8 m further on: one
    // by one, each new track is nearest his neighbour's old place
    let line = |first: u64, dx: f64| -> Vec<Observed> {
        (0..5u32)
            .map(|i| obs(first + u64::from(i), 10.0 + 6.0 * f64::from(i) + dx, 30.0))
            .collect()
    };
    let run = |cut: bool| {
        let mut k = IdentityKeeper::new(IdentityConfig::default());
        k.assign(0.0, &line(1, 0.0), no_team);
        if cut {
            k.cut(0.5);
        }
        k.assign(1.0, &line(20, 8.0), no_team).ids
    };
    assert_eq!(run(true), vec![1, 2, 3, 4, 5]);
    assert_ne!(run(false), vec![1, 2, 3, 4, 5]);
    // two players are no group: no shift is guessed from them (10 m on, beyond the 8.5 m
    // radius, the first is taken for the second and the second is someone new)
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    k.assign(0.0, &[obs(1, 10.0, 30.0), obs(2, 16.0, 30.0)], no_team);
    k.cut(0.5);
    let back = k.assign(1.0, &[obs(20, 20.0, 30.0), obs(21, 26.0, 30.0)], no_team);
    assert_eq!(back.ids, vec![2, 3]);
}

#[test]
fn a_track_that_jumps_to_someone_else_leaves_the_identity_behind() {
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    let others = |t: f64| [obs(9, 40.0, 40.0 + t), obs(11, 60.0, 20.0)];
    let frame = |k: &mut IdentityKeeper, t: f64, tracks: &[Observed]| {
        let all: Vec<Observed> = tracks.iter().copied().chain(others(t)).collect();
        k.assign(t, &all, no_team)
    };
    frame(&mut k, 0.0, &[obs(7, 10.0, 10.0)]);
    // the tracker matched track 7 to a player 15 m away a frame later: someone new
    assert_eq!(
        frame(&mut k, 0.04, &[obs(7, 25.0, 10.0)]).ids,
        vec![4, 2, 3]
    );
    // the player himself, back as a new track, takes his id again, and track 7 (now id 4)
    // is not dropped for it
    let back = frame(&mut k, 0.08, &[obs(7, 25.1, 10.0), obs(8, 10.2, 10.0)]);
    assert_eq!(back.ids, vec![4, 1, 2, 3]);
    assert!(back.superseded.is_empty());
    assert_eq!(
        frame(&mut k, 0.12, &[obs(7, 25.2, 10.0)]).ids,
        vec![4, 2, 3]
    );
    // the whole picture jumping (a camera's bad frame) is no player's jump: ids stay
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    k.assign(0.0, &[obs(7, 10.0, 10.0), obs(9, 30.0, 10.0)], no_team);
    let moved = [obs(7, 25.0, 10.0), obs(9, 45.0, 10.0)];
    assert_eq!(k.assign(0.04, &moved, no_team).ids, vec![1, 2]);
    // a sprint (8.5 m in 0.5 s) or a box's jitter (3.8 m in a frame) is no jump
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    frame(&mut k, 0.0, &[obs(7, 10.0, 10.0)]);
    assert_eq!(frame(&mut k, 0.5, &[obs(7, 18.5, 10.0)]).ids, vec![1, 2, 3]);
    assert_eq!(
        frame(&mut k, 0.54, &[obs(7, 22.3, 10.0)]).ids,
        vec![1, 2, 3]
    );
}

#[test]
fn a_take_over_gone_the_next_frame_gives_the_identity_back_as_it_was() {
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    k.assign(0.0, &[obs(7, 50.0, 30.0), obs(9, 20.0, 20.0)], no_team);
    k.assign(0.04, &[obs(9, 20.0, 20.0)], no_team); // 7 leaves the picture at (50, 30)
    // 5 s later a one-frame box 13.6 m away (a duplicate, a false detection) takes 7's
    // identity over: within the 21.5 m the time away allows
    let spurious = k.assign(5.0, &[obs(9, 20.0, 20.0), obs(30, 40.0, 38.0)], no_team);
    assert_eq!(spurious.ids, vec![2, 1]);
    k.assign(5.04, &[obs(9, 20.0, 20.0)], no_team);
    // the player himself comes back where he left: his identity, not a fresh one (without
    // the undo it would be remembered at (40, 38) 0.4 s ago, 3.1 m of radius, 13.6 m away)
    let back = k.assign(5.4, &[obs(9, 20.0, 20.0), obs(31, 51.0, 30.0)], no_team);
    assert_eq!(back.ids, vec![2, 1]);
    // and the spurious track, were it to come back, is someone new
    let again = k.assign(
        5.44,
        &[obs(9, 20.0, 20.0), obs(31, 51.0, 30.0), obs(30, 40.0, 38.0)],
        no_team,
    );
    assert_eq!(again.ids, vec![2, 1, 3]);
}

#[test]
fn a_take_over_seen_for_the_confirmation_frames_is_kept() {
    let cfg = IdentityConfig::default();
    let mut k = IdentityKeeper::new(cfg);
    k.assign(0.0, &[obs(7, 50.0, 30.0)], no_team);
    k.assign(0.04, &[], no_team);
    let mut t = 5.0;
    for i in 0..cfg.confirm_frames {
        let x = 40.0 + f64::from(i) * 0.1;
        assert_eq!(k.assign(t, &[obs(30, x, 38.0)], no_team).ids, vec![1]);
        t += 0.04;
    }
    // confirmed: missing a frame now undoes nothing, and the identity is remembered at (40, 38)
    k.assign(t, &[], no_team);
    let near_new = k.assign(t + 0.4, &[obs(31, 41.0, 38.0)], no_team);
    assert_eq!(near_new.ids, vec![1]);
}

fn unplaced(tracker_id: u64) -> Observed {
    Observed {
        pitch: None,
        ..obs(tracker_id, 0.0, 0.0)
    }
}

/// After a cut every track is new and the camera comes a few frames later: the new tracks are
/// held back until it does, then published under the ids they had before the cut — never
/// under the fresh ids they had meanwhile (two switches per player per cut).
#[test]
fn new_tracks_after_a_cut_are_held_until_the_camera_says_who_they_are() {
    let mut k = IdentityKeeper::new(IdentityConfig::default());
    let before = k.assign(0.0, &[obs(7, 10.0, 10.0), obs(8, 20.0, 10.0)], no_team);
    assert_eq!((before.ids, before.held), (vec![1, 2], vec![false, false]));
    // the cut: new tracks, no camera for 4 frames
    for n in 1..=4 {
        let t = f64::from(n) * 0.04;
        let waiting = k.assign(t, &[unplaced(20), unplaced(21)], no_team);
        assert_eq!(waiting.held, vec![true, true], "frame {n}");
    }
    let found = k.assign(0.2, &[obs(20, 20.2, 10.0), obs(21, 10.2, 10.0)], no_team);
    assert_eq!((found.ids, found.held), (vec![2, 1], vec![false, false]));
}

/// Nobody to wait for (the first frames of a video), or no camera for longer than the hold (a
/// close-up): new tracks are published with fresh ids.
#[test]
fn new_tracks_are_published_when_there_is_nobody_to_wait_for_or_the_hold_is_over() {
    let cfg = IdentityConfig::default();
    let mut k = IdentityKeeper::new(cfg);
    let first = k.assign(0.0, &[unplaced(3)], no_team);
    assert_eq!((first.ids, first.held), (vec![1], vec![false]));

    let mut k = IdentityKeeper::new(cfg);
    k.assign(0.0, &[obs(7, 10.0, 10.0)], no_team);
    let mut t = 0.04;
    while t < cfg.hold_secs + 0.04 {
        assert_eq!(
            k.assign(t, &[unplaced(30)], no_team).held,
            vec![true],
            "{t} s"
        );
        t += 0.04;
    }
    let close_up = k.assign(t + 0.04, &[unplaced(30)], no_team);
    assert_eq!((close_up.ids, close_up.held), (vec![2], vec![false]));
    // and a provisional id published that way is still handed the vanished player's when
    // the camera comes back with the track where he was
    let back = k.assign(t + 0.08, &[obs(30, 10.5, 10.0)], no_team);
    assert_eq!(back.ids, vec![1]);
}

/// A player (track 7) running left, with a second box (track 8) on him for one frame, and
/// track 9 elsewhere; then a cut. Returns the keeper and the time of the cut.
fn a_player_with_a_second_box_for_a_frame(cfg: IdentityConfig) -> (IdentityKeeper, f64) {
    let mut k = IdentityKeeper::new(cfg);
    let mut t = 0.0;
    for i in 0..20 {
        let x = 52.0 - 0.05 * f64::from(i);
        let mut seen = vec![obs(7, x, 30.0), obs(9, 20.0, 20.0)];
        if i == 19 {
            seen.push(obs(8, x - 0.4, 30.0));
        }
        let ids = k.assign(t, &seen, no_team).ids;
        assert_eq!(ids, if i == 19 { vec![1, 2, 3] } else { vec![1, 2] });
        t += 0.04;
    }
    k.cut(t);
    (k, t)
}

#[test]
fn a_second_box_that_had_an_id_for_a_frame_does_not_take_the_player_after_a_cut() {
    // back after the cut nearer where the second box was last seen (50.65) than where the
    // player was (51.05): his own id is the likelier
    let back = |cfg| {
        let (mut k, t) = a_player_with_a_second_box_for_a_frame(cfg);
        k.assign(t + 1.5, &[obs(9, 20.0, 20.0), obs(12, 50.7, 30.2)], no_team)
            .ids
    };
    assert_eq!(back(IdentityConfig::default()), vec![2, 1]);
    // without the penalty the one-frame id wins
    let cfg = IdentityConfig {
        brief_penalty: 0.0,
        ..IdentityConfig::default()
    };
    assert_eq!(back(cfg), vec![2, 3]);
}
