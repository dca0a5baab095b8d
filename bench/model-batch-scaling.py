#!/usr/bin/python3
"""How a shipped TorchScript model's cost per episode falls with the batch, on this CPU.

The ceiling for `kosmos-cli run --batch N` (docs/benchmarks.md, "Batched episodes"): the
model's own forward pass at batch N against N forward passes at batch 1, with nothing of the
engine around it. Usage: bench/model-batch-scaling.py [models/world] [--batches 1 4 16]
[--threads T] [--seconds S] [--optimize]. Inputs are random tensors of the shapes the package's
io states. --optimize: the module frozen and optimized for inference, as settings.optimize loads it
(torch.jit.freeze, then torch.jit.optimize_for_inference).
"""
import argparse
import json
import pathlib
import time

import torch


def inputs_for(io, batch, gen):
    out = []
    for spec in io["inputs"]:
        shape = [batch] + list(spec.get("shape", [1])[1:])
        if spec["source"] in ("frames", "image"):
            out.append(torch.rand(shape, generator=gen))
        elif spec["source"] == "instruction_id":
            out.append(torch.zeros(shape, dtype=torch.long))
        else:
            out.append(torch.randn(shape, generator=gen) * 0.1)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("package", nargs="?", default="models/world")
    ap.add_argument("--batches", nargs="+", type=int, default=[1, 4, 16])
    ap.add_argument("--threads", type=int, default=0, help="intra-op threads (0: torch's default)")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--optimize", action="store_true", help="freeze and optimize for inference")
    a = ap.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    pkg = pathlib.Path(a.package)
    meta = json.loads((pkg / "kosmos-model.json").read_text())
    module = torch.jit.load(str(pkg / meta["files"]["module"]["path"]), map_location="cpu")
    module.eval()
    if a.optimize:
        module = torch.jit.optimize_for_inference(torch.jit.freeze(module))
    gen = torch.Generator().manual_seed(0)
    how = ", optimized for inference" if a.optimize else ""
    print(f"{pkg} ({meta['family']}), torch {torch.__version__}, "
          f"{torch.get_num_threads()} intra-op threads{how}")
    print("batch  calls  ms/call  ms/episode  speed-up vs batch 1")
    base = None
    with torch.inference_mode():
        for b in a.batches:
            x = inputs_for(meta["io"], b, gen)
            for _ in range(3):
                module(*x)
            calls, start = 0, time.perf_counter()
            while time.perf_counter() - start < a.seconds:
                module(*x)
                calls += 1
            ms = (time.perf_counter() - start) * 1000 / calls
            per = ms / b
            base = base or per
            print(f"{b:5d}  {calls:5d}  {ms:7.2f}  {per:10.2f}  {base / per:6.2f}x")


if __name__ == "__main__":
    main()
