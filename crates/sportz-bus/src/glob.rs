//! Redis-style glob matching of channel and key names: `*`, `?`, `[abc]`, `[a-z]`, `[^a]`, `\x`.

/// Whether `text` matches `pattern`.
pub(crate) fn matches(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    match_from(&p, &t)
}

fn match_from(p: &[char], t: &[char]) -> bool {
    let (mut pi, mut ti) = (0, 0);
    // position after the last `*` in the pattern and the text index it was tried at
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi + 1, ti));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ti += 1;
                    continue;
                }
                '[' => {
                    if let Some((ok, next)) = class(p, pi, t[ti]) {
                        if ok {
                            pi = next;
                            ti += 1;
                            continue;
                        }
                    } else if t[ti] == '[' {
                        pi += 1;
                        ti += 1;
                        continue;
                    }
                }
                '\\' if pi + 1 < p.len() => {
                    if p[pi + 1] == t[ti] {
                        pi += 2;
                        ti += 1;
                        continue;
                    }
                }
                c => {
                    if c == t[ti] {
                        pi += 1;
                        ti += 1;
                        continue;
                    }
                }
            }
        }
        match star {
            Some((sp, st)) => {
                pi = sp;
                ti = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Matches `c` against the class starting at `p[start] == '['`; returns (matched, index after
/// the class), or `None` when the class is unterminated.
fn class(p: &[char], start: usize, c: char) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = p.get(i) == Some(&'^');
    if negate {
        i += 1;
    }
    let mut hit = false;
    while i < p.len() && p[i] != ']' {
        if p[i] == '\\' && i + 1 < p.len() {
            hit |= p[i + 1] == c;
            i += 2;
        } else if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            let (lo, hi) = if p[i] <= p[i + 2] {
                (p[i], p[i + 2])
            } else {
                (p[i + 2], p[i])
            };
            hit |= (lo..=hi).contains(&c);
            i += 3;
        } else {
            hit |= p[i] == c;
            i += 1;
        }
    }
    (i < p.len()).then_some((hit != negate, i + 1))
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn glob_cases() {
        let cases = [
            ("match:*:status", "match:match_01:status", true),
            ("match:*:status", "match:match_01:events", false),
            ("match:*:status", "match::status", true),
            ("worker:*:heartbeat", "worker:gpu-1:heartbeat", true),
            ("*", "", true),
            ("*", "anything", true),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("h[ae]llo", "hello", true),
            ("h[ae]llo", "hillo", false),
            ("h[^e]llo", "hallo", true),
            ("h[^e]llo", "hello", false),
            ("h[a-c]llo", "hbllo", true),
            ("h[a-c]llo", "hdllo", false),
            ("a\\*b", "a*b", true),
            ("a\\*b", "axb", false),
            ("*:last", "match:x:frame:last", true),
            ("a*b*c", "aXbYbZc", true),
            ("a*b*c", "aXbYbZ", false),
            ("exact", "exact", true),
            ("exact", "exactly", false),
        ];
        for (p, t, want) in cases {
            assert_eq!(matches(p, t), want, "pattern `{p}` on `{t}`");
        }
    }
}
