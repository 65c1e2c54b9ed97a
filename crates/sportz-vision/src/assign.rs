//! Minimum-cost linear assignment (the Hungarian method with potentials, O(n²·m)).

/// Pairs `(row, col)` minimising the total cost, each row and column used at most once, and only
/// pairs whose cost is at most `max_cost` (an over-threshold pair counts as "unassigned").
#[must_use]
pub fn assign(cost: &[Vec<f64>], max_cost: f64) -> Vec<(usize, usize)> {
    let rows = cost.len();
    let cols = cost.first().map_or(0, Vec::len);
    if rows == 0 || cols == 0 {
        return Vec::new();
    }
    // forbidden pairs cost more than any sum of allowed ones, so they are chosen only when forced;
    // sized from the allowed costs, not from max_cost, which may be huge or infinite (an
    // infinite `big` never lets the search end, a huge one drowns the real costs' digits)
    let largest = cost
        .iter()
        .flatten()
        .filter(|v| v.is_finite() && **v <= max_cost)
        .fold(0.0_f64, |m, v| m.max(v.abs()));
    let big = 1e6 * (1.0 + largest) * (rows.max(cols) as f64);
    let at = |r: usize, c: usize| {
        let v = cost[r][c];
        if v.is_finite() && v <= max_cost {
            v
        } else {
            big
        }
    };
    let transpose = rows > cols;
    let (n, m) = if transpose {
        (cols, rows)
    } else {
        (rows, cols)
    };
    let a = |i: usize, j: usize| if transpose { at(j, i) } else { at(i, j) };
    let mut u = vec![0.0; n + 1];
    let mut v = vec![0.0; m + 1];
    let mut p = vec![0usize; m + 1];
    let mut way = vec![0usize; m + 1];
    for i in 1..=n {
        p[0] = i;
        let mut j0 = 0;
        let mut minv = vec![f64::INFINITY; m + 1];
        let mut used = vec![false; m + 1];
        loop {
            used[j0] = true;
            let i0 = p[j0];
            let mut delta = f64::INFINITY;
            let mut j1 = 0;
            for j in 1..=m {
                if !used[j] {
                    let cur = a(i0 - 1, j - 1) - u[i0] - v[j];
                    if cur < minv[j] {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if minv[j] < delta {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=m {
                if used[j] {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if p[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    let mut out: Vec<(usize, usize)> = (1..=m)
        .filter(|&j| p[j] != 0)
        .map(|j| {
            if transpose {
                (j - 1, p[j] - 1)
            } else {
                (p[j] - 1, j - 1)
            }
        })
        .filter(|&(r, c)| cost[r][c].is_finite() && cost[r][c] <= max_cost)
        .collect();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(cost: &[&[f64]], max_cost: f64, expected: &[(usize, usize)]) {
        let cost: Vec<Vec<f64>> = cost.iter().map(|r| r.to_vec()).collect();
        assert_eq!(assign(&cost, max_cost), expected, "{cost:?}");
    }

    #[test]
    fn assignment_cases() {
        check(&[], 1.0, &[]);
        check(&[&[0.1]], 1.0, &[(0, 0)]);
        check(&[&[2.0]], 1.0, &[]);
        // greedy would take (0,0)=0.1 and be forced into (1,1)=0.9; optimal is 0.2 + 0.3
        check(&[&[0.1, 0.2], &[0.3, 0.9]], 1.0, &[(0, 1), (1, 0)]);
        // rectangular both ways
        check(&[&[0.5, 0.1, 0.9]], 1.0, &[(0, 1)]);
        check(&[&[0.5], &[0.1], &[0.9]], 1.0, &[(1, 0)]);
        // an over-threshold pair is never returned, even if it is the only option left
        check(&[&[0.1, 0.9], &[0.2, 5.0]], 1.0, &[(0, 1), (1, 0)]);
        check(&[&[0.1, 5.0], &[0.2, 5.0]], 1.0, &[(0, 0)]);
        check(&[&[f64::NAN, 0.3]], 1.0, &[(0, 1)]);
        // 3×3 classic
        check(
            &[&[4.0, 1.0, 3.0], &[2.0, 0.0, 5.0], &[3.0, 2.0, 2.0]],
            10.0,
            &[(0, 1), (1, 0), (2, 2)],
        );
        // no threshold at all: infinite costs are still forbidden, and the search ends
        check(
            &[&[0.1, f64::INFINITY], &[0.2, 0.3]],
            f64::INFINITY,
            &[(0, 0), (1, 1)],
        );
    }
}
