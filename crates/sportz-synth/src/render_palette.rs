//! Who wears what: the team kits and keeper shirts a match draws from (two teams whose shirts
//! differ enough, keepers unlike both), skin and hair tones, the referee, the grass and the sun.

use sportz_contract::{ObjectClass, TeamSide};

use crate::geom::{V2, v2};

/// A team's colours and its three-letter code on the scoreboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Kit {
    pub code: &'static str,
    pub shirt: [u8; 3],
    pub shorts: [u8; 3],
    pub socks: [u8; 3],
}

const fn kit(code: &'static str, shirt: [u8; 3], shorts: [u8; 3], socks: [u8; 3]) -> Kit {
    Kit {
        code,
        shirt,
        shorts,
        socks,
    }
}

/// Outfield kits; any two differ clearly from each other, from the grass and from the referee.
pub(crate) const KITS: [Kit; 7] = [
    kit("RED", [200, 28, 36], [245, 245, 245], [200, 28, 36]),
    kit("BLU", [30, 70, 200], [20, 28, 80], [30, 70, 200]),
    kit("WHI", [238, 238, 238], [30, 30, 40], [238, 238, 238]),
    kit("SKY", [110, 180, 235], [250, 250, 250], [20, 30, 60]),
    kit("ORA", [245, 128, 20], [25, 25, 25], [245, 128, 20]),
    kit("MAR", [118, 22, 48], [235, 235, 235], [118, 22, 48]),
    kit("YEL", [240, 210, 30], [25, 55, 150], [240, 210, 30]),
];
/// Goalkeeper shirts, chosen to clash with neither outfield kit.
pub(crate) const KEEPER_SHIRTS: [[u8; 3]; 6] = [
    [170, 230, 40],
    [200, 40, 170],
    [30, 200, 200],
    [120, 120, 125],
    [250, 150, 190],
    [110, 50, 160],
];
pub(crate) const REFEREE_SHIRT: [u8; 3] = [22, 22, 22];
const REFEREE: Kit = kit("REF", REFEREE_SHIRT, REFEREE_SHIRT, REFEREE_SHIRT);
pub(super) const SKIN: [[u8; 3]; 4] = [
    [236, 196, 160],
    [205, 150, 110],
    [150, 100, 70],
    [95, 62, 45],
];
pub(super) const HAIR: [[u8; 3]; 4] = [[40, 30, 20], [20, 15, 12], [90, 60, 30], [15, 12, 10]];

/// Sum of absolute channel differences.
fn shirt_distance(a: [u8; 3], b: [u8; 3]) -> i32 {
    (0..3)
        .map(|i| (i32::from(a[i]) - i32::from(b[i])).abs())
        .sum()
}

/// Who wears what in this match.
#[derive(Debug, Clone)]
pub(crate) struct Palette {
    pub home: Kit,
    pub away: Kit,
    pub home_keeper: [u8; 3],
    pub away_keeper: [u8; 3],
    /// The two mowing-stripe greens.
    pub grass: [[u8; 3]; 2],
    /// Ground direction shadows fall in (unit vector, metres).
    pub sun: V2,
}

const GRASS: [[[u8; 3]; 2]; 3] = [
    [[56, 134, 52], [46, 118, 44]],
    [[64, 140, 46], [54, 124, 40]],
    [[48, 124, 58], [40, 110, 50]],
];

impl Palette {
    pub(crate) fn pick(r: u64) -> Self {
        let h = (r % KITS.len() as u64) as usize;
        let shirt_far = |i: &usize| shirt_distance(KITS[*i].shirt, KITS[h].shirt) > 150;
        let away: Vec<usize> = (0..KITS.len()).filter(shirt_far).collect();
        let a = away[((r >> 8) % away.len() as u64) as usize];
        // Keepers: the first shirts (from a seeded start) far from both outfield shirts.
        let far = |c: [u8; 3], d: [u8; 3]| shirt_distance(c, d) > 150;
        let start = ((r >> 16) % KEEPER_SHIRTS.len() as u64) as usize;
        let keepers: Vec<[u8; 3]> = (0..KEEPER_SHIRTS.len())
            .map(|i| KEEPER_SHIRTS[(start + i) % KEEPER_SHIRTS.len()])
            .filter(|&c| far(c, KITS[h].shirt) && far(c, KITS[a].shirt))
            .collect();
        let k1 = keepers.first().copied().unwrap_or(KEEPER_SHIRTS[0]);
        let k2 = keepers
            .iter()
            .copied()
            .find(|&c| far(c, k1))
            .unwrap_or(KEEPER_SHIRTS[1]);
        Self {
            home: KITS[h],
            away: KITS[a],
            home_keeper: k1,
            away_keeper: k2,
            grass: GRASS[((r >> 32) % GRASS.len() as u64) as usize],
            sun: {
                // From behind the camera's left or right, towards the far side.
                let a =
                    ((r >> 40) % 1000) as f64 / 1000.0 * 1.6 - 0.8 - std::f64::consts::FRAC_PI_2;
                v2(a.cos(), a.sin())
            },
        }
    }

    pub(super) fn person(&self, team: TeamSide, role: ObjectClass) -> Kit {
        match (team, role) {
            (_, ObjectClass::Referee) | (TeamSide::Other, _) => REFEREE,
            (TeamSide::Home, ObjectClass::Goalkeeper) => Kit {
                shirt: self.home_keeper,
                shorts: self.home_keeper,
                socks: self.home_keeper,
                ..self.home
            },
            (TeamSide::Away, ObjectClass::Goalkeeper) => Kit {
                shirt: self.away_keeper,
                shorts: self.away_keeper,
                socks: self.away_keeper,
                ..self.away
            },
            (TeamSide::Home, _) => self.home,
            (TeamSide::Away, _) => self.away,
        }
    }
}
