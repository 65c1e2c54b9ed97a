"""Compares the new model with the baseline from the metrics JSON files tools/train-real-model
writes, prints a Markdown table, and exits 0 only if the new model earns default status:

- player AP50 on both real valid splits (players-dfl, players-mls) beats the baseline's by at
  least --margin (absolute), and
- on the held-out synthetic seeds no class's AP50 (player, referee, ball, people) falls more
  than --synth-tolerance below the baseline's.
"""

import argparse
import json
import math
import sys
from pathlib import Path

SETS = [("dfl-valid", "players-dfl valid"), ("mls-valid", "players-mls valid"), ("synth-heldout", "synthetic held-out 900-904")]
CLASSES = ["player", "goalkeeper", "referee", "ball", "people (any role)"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", type=Path, required=True)
    ap.add_argument("--margin", type=float, default=0.05)
    ap.add_argument("--synth-tolerance", type=float, default=0.05)
    a = ap.parse_args()
    m = {(tag, s): json.loads((a.run / f"{tag}-{s}.json").read_text()) for tag in ("baseline", "new") for s, _ in SETS}
    print("| set | class | truth boxes | baseline AP50 | new AP50 | new recall@0.25 | new precision@0.25 |")
    print("|---|---|---|---|---|---|---|")
    for s, label in SETS:
        for c in CLASSES:
            b, n = m[("baseline", s)]["classes"][c], m[("new", s)]["classes"][c]
            print(f"| {label} | {c} | {n['truth_boxes']} | {b['ap50']:.3f} | {n['ap50']:.3f} | "
                  f"{n['recall@0.25']:.3f} | {n['precision@0.25']:.3f} |")
        print(f"| {label} | ball within 4 px @0.25 | | {m[('baseline', s)]['ball_recall_within_4px@0.25']:.3f} | "
              f"{m[('new', s)]['ball_recall_within_4px@0.25']:.3f} | | |")
    ok, why = True, []
    for s in ("dfl-valid", "mls-valid"):
        b = m[("baseline", s)]["classes"]["player"]["ap50"]
        n = m[("new", s)]["classes"]["player"]["ap50"]
        if not n >= b + a.margin:
            ok = False
            why.append(f"{s}: player AP50 {n:.3f} is not {a.margin} above the baseline's {b:.3f}")
    for c in ("player", "referee", "ball", "people (any role)"):
        b = m[("baseline", "synth-heldout")]["classes"][c]["ap50"]
        n = m[("new", "synth-heldout")]["classes"][c]["ap50"]
        if not math.isnan(b) and not n >= b - a.synth_tolerance:
            ok = False
            why.append(f"synthetic held-out: {c} AP50 {n:.3f} is more than {a.synth_tolerance} below {b:.3f}")
    print()
    print("earns default status" if ok else "does NOT earn default status: " + "; ".join(why))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
