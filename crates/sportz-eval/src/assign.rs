//! One-to-one assignment maximising a total score (the Hungarian method), on top of
//! `pathfinding::kuhn_munkres`, which wants integer weights and no more rows than columns.

use pathfinding::kuhn_munkres::kuhn_munkres;
use pathfinding::matrix::Matrix;

/// Float scores are turned into integers at this resolution (1e-9 of a unit). Scores here are at
/// most ~1001 (CLEAR's `1000 · continuing + IoU`), so a total over a few hundred rows stays far
/// below `i64::MAX`.
const SCALE: f64 = 1e9;

/// The assignment that maximises the total of `weights` (row-major, `rows × cols`): a list of
/// `(row, col)` pairs covering every row when `rows <= cols`, else every column. Pairs of weight
/// 0 are included (callers drop the ones their threshold rejects, as `TrackEval` does after
/// scipy's `linear_sum_assignment`).
pub(crate) fn max_weight(rows: usize, cols: usize, weights: &[i64]) -> Vec<(usize, usize)> {
    debug_assert_eq!(weights.len(), rows * cols);
    if rows == 0 || cols == 0 {
        return Vec::new();
    }
    if rows <= cols {
        let m = Matrix::from_vec(rows, cols, weights.to_vec()).expect("rows × cols weights");
        let (_, assigned) = kuhn_munkres(&m);
        assigned.into_iter().enumerate().collect()
    } else {
        let mut t = Vec::with_capacity(rows * cols);
        for c in 0..cols {
            for r in 0..rows {
                t.push(weights[r * cols + c]);
            }
        }
        let m = Matrix::from_vec(cols, rows, t).expect("cols × rows weights");
        let (_, assigned) = kuhn_munkres(&m);
        let mut pairs: Vec<(usize, usize)> = assigned
            .into_iter()
            .enumerate()
            .map(|(c, r)| (r, c))
            .collect();
        pairs.sort_unstable();
        pairs
    }
}

/// [`max_weight`] for non-negative float scores.
pub(crate) fn max_score(rows: usize, cols: usize, scores: &[f64]) -> Vec<(usize, usize)> {
    let weights: Vec<i64> = scores
        .iter()
        .map(|s| (s.max(0.0) * SCALE).round() as i64)
        .collect();
    max_weight(rows, cols, &weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_and_tall_matrices_are_both_assigned() {
        // 2 × 3: row 0 → col 2, row 1 → col 0 (total 9 + 8).
        let wide = max_weight(2, 3, &[1, 2, 9, 8, 1, 1]);
        assert_eq!(wide, vec![(0, 2), (1, 0)]);
        // 3 × 2, the transpose.
        let tall = max_weight(3, 2, &[1, 8, 2, 1, 9, 1]);
        assert_eq!(tall, vec![(0, 1), (2, 0)]);
        assert!(max_weight(0, 4, &[]).is_empty());
    }

    #[test]
    fn float_scores_pick_the_best_total_not_the_greedy_pair() {
        // Greedy would take (0,0)=0.9 and leave (1,1)=0.1; the optimum is 0.8 + 0.8.
        let pairs = max_score(2, 2, &[0.9, 0.8, 0.8, 0.1]);
        assert_eq!(pairs, vec![(0, 1), (1, 0)]);
    }
}
