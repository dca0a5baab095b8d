#!/usr/bin/python3
"""Calibrates a trained success classifier (a torch.generic_judge package) on starts of its own:
one bias added to its progress-5 logit, chosen on the validation fifth of its training dataset
(the starts kosmos_train.py never trained it on and stopped early on), and written as a new
package whose module is the old one with that bias (docs/training.md, "judge-3").

Why: the judge draws each sample's progress from softmax(logits / temperature) and a verdict is
a quorum of samples, so how often it says "met" for a real success depends on P(progress 5) under
the temperature the protocol uses. judge-2 was trained with balanced class weights yet found
60% of the simulator's successes in the tabletop study (specificity 98%): its threshold, not its
ranking, was off. The bias is chosen to maximise the smaller of the expected sensitivity and
specificity of the quorum verdict on the validation starts, at the judge configuration's
temperature, samples and quorum; nothing of any study's held-out starts is read.

  calibrate_judge.py --judge models/judge-2 --dataset JUDGE_DATASET --out models/judge-3 \
      --config examples/fidelity-judge-2.json [--record models/training-record.json]

Prints the expected figures before and after, and the verdicts drawn with the judge's own
sampling on the validation starts; adds an entry for the new package to the record.
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kosmos_train as kt  # noqa: E402


class BiasedJudge(nn.Module):
    """A judge module with a constant added to its logits (the calibration)."""

    def __init__(self, inner, bias):
        super().__init__()
        self.inner = inner
        self.register_buffer("logit_bias", bias)

    def forward(self, frames: torch.Tensor, task: torch.Tensor) -> torch.Tensor:
        return self.inner(frames, task) + self.logit_bias


def quorum_met(p5, samples, quorum):
    """P(at least `quorum` of `samples` independent draws are progress 5)."""
    return sum(math.comb(samples, k) * p5 ** k * (1 - p5) ** (samples - k)
               for k in range(quorum, samples + 1))


def expected(logits, success, bias, temperature, samples, quorum):
    z = logits.clone()
    z[:, 5] += bias
    p5 = torch.softmax(z / temperature, 1)[:, 5].double()
    met = quorum_met(p5, samples, quorum)
    return float(met[success].mean()), float((1 - met[~success]).mean())


def drawn(logits, success, bias, temperature, samples, quorum, seed):
    """Verdicts drawn as the judge draws them (one generator per episode here, not the judge's
    seeds: an estimate of the same proportions)."""
    rng = np.random.default_rng(seed)
    z = logits.clone()
    z[:, 5] += bias
    p = torch.softmax(z / temperature, 1).double().numpy()
    said = np.array([(rng.choice(6, size=samples, p=row / row.sum()) == 5).sum() >= quorum
                     for row in p])
    truth = success.numpy()
    return {"true_positive": int((said & truth).sum()), "false_negative": int((~said & truth).sum()),
            "true_negative": int((~said & ~truth).sum()), "false_positive": int((said & ~truth).sum())}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--judge", required=True, help="the trained judge package")
    ap.add_argument("--dataset", required=True, help="the dataset it was trained on")
    ap.add_argument("--config", required=True,
                    help="the judge configuration the protocols use (its quorum: temperature, "
                         "samples, quorum)")
    ap.add_argument("--out", required=True, help="the calibrated package (a new folder)")
    ap.add_argument("--record", help="training-record.json to add the package's entry to")
    ap.add_argument("--name", default=None, help="its name in the record (the folder's name)")
    ap.add_argument("--validation", choices=["fifth", "all"], default="fifth",
                    help="fifth: the validation starts the trainer held out (the default); all: "
                         "every episode (a smoke test on a tiny dataset; the record says so)")
    ap.add_argument("--min-validation", type=int, default=40,
                    help="validation episodes needed (default 40)")
    args = ap.parse_args(argv)
    started = time.time()
    with open(args.config) as f:
        quorum = json.load(f)["quorum"]
    temperature, samples, need = quorum["temperature"], quorum["samples"], quorum["quorum"]
    manifest_path = os.path.join(args.judge, "kosmos-model.json")
    with open(manifest_path) as f:
        manifest = json.load(f)
    if manifest.get("family") != "generic_judge":
        kt.fail(f"{manifest_path}: family {manifest.get('family')!r}, not generic_judge")
    module_path = os.path.join(args.judge, manifest["files"]["module"]["path"])
    if kt.sha256_file(module_path) != manifest["files"]["module"]["sha256"]:
        kt.fail(f"{module_path}: its SHA-256 is not the manifest's")
    if os.path.exists(args.out) and os.listdir(args.out):
        kt.fail(f"{args.out} exists and is not empty")
    inner = torch.jit.load(module_path).eval()
    vocabulary = manifest["io"]["vocabulary"]
    count = manifest["io"]["inputs"][0]["shape"][1]

    episodes, dataset_sha = kt.load_dataset(args.dataset)
    held = [e for e in episodes if args.validation == "all" or kt.validation_start(e)]
    if len(held) < args.min_validation:
        kt.fail(f"{args.dataset}: {len(held)} validation episodes; at least "
                f"{args.min_validation} are needed")
    successes = sum(e["progress"] == 5 for e in held)
    if successes == 0 or successes == len(held):
        kt.fail(f"{args.dataset}: the validation episodes are all "
                f"{'failures' if successes == 0 else 'successes'}; a threshold needs both")
    frames = kt.to_tensor(np.stack([e["frames"][kt.judge_indices(len(e["frames"]))[-count:]]
                                    for e in held]))
    tasks = torch.tensor([vocabulary.index(e["instruction"]) for e in held])
    success = torch.tensor([e["progress"] == 5 for e in held])
    with torch.no_grad():
        logits = torch.cat([inner(frames[i:i + 256], tasks[i:i + 256])
                            for i in range(0, len(held), 256)]).float()

    grid = [round(b, 2) for b in np.arange(-2.0, 8.0001, 0.05)]
    scored = [(min(expected(logits, success, b, temperature, samples, need)), -abs(b), b)
              for b in grid]
    best = max(scored)[2]
    before = expected(logits, success, 0.0, temperature, samples, need)
    after = expected(logits, success, best, temperature, samples, need)
    print(f"{len(held)} validation episodes ({int(success.sum())} successes) of "
          f"{len(episodes)}; temperature {temperature}, {need} of {samples} samples")
    print(f"  bias 0 (as trained): expected sensitivity {before[0]:.3f}, "
          f"specificity {before[1]:.3f}")
    print(f"  bias {best}: expected sensitivity {after[0]:.3f}, specificity {after[1]:.3f}")
    verdicts = {"before": drawn(logits, success, 0.0, temperature, samples, need, 1),
                "after": drawn(logits, success, best, temperature, samples, need, 1)}
    print(f"  drawn verdicts: before {verdicts['before']}, after {verdicts['after']}")

    bias = torch.zeros(1, 6)
    bias[0, 5] = best
    name = args.name or os.path.basename(os.path.normpath(args.out))
    source = os.path.basename(os.path.normpath(args.judge))
    description = (f"{source} calibrated: {best:+.2f} added to its progress-5 logit, chosen on the "
                   f"validation fifth of its training starts (tools/train/calibrate_judge.py, "
                   f"at temperature {temperature}, {need} of {samples} samples). "
                   + manifest.get("description", ""))
    files = kt.write_package(args.out, "generic_judge", BiasedJudge(inner, bias), manifest["io"],
                             {}, description)
    entry = {"calibrated_from": source,
             "calibrated_from_module_sha256": manifest["files"]["module"]["sha256"],
             "success_logit_bias": best,
             "chosen_on": {"episodes": len(held), "successes": int(success.sum()),
                           "split": ("validation fifth: starts whose SHA-256 is 0 mod 5"
                                     if args.validation == "fifth"
                                     else "every episode (smoke test: not held out)"),
                           "rule": "the bias (grid -2..8 by 0.05) maximising min(expected "
                                   "sensitivity, expected specificity) of the quorum verdict"},
             "quorum": {"temperature": temperature, "samples": samples, "quorum": need},
             "expected_before": {"sensitivity": round(before[0], 4),
                                 "specificity": round(before[1], 4)},
             "expected_after": {"sensitivity": round(after[0], 4),
                                "specificity": round(after[1], 4)},
             "drawn_verdicts": verdicts,
             "dataset_sha256": dataset_sha,
             "trainer_sha256": kt.sha256_file(os.path.abspath(__file__)),
             "wall_s": round(time.time() - started, 1), **files}
    if args.record:
        with open(args.record) as f:
            record = json.load(f)
        record["models"][name] = entry
        with open(args.record, "w") as f:
            json.dump(record, f, indent=2)
            f.write("\n")
    print(f"wrote {args.out} ({files['module_sha256'][:12]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
