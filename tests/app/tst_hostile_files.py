"""Hostile .pt2 files (issue 47) through both readers that see a file before LibTorch: the
window's reader process (fxview-reader, which the window starts to draw a .pt2 ahead of its
engine and to key its graph cache) and the engine's (fxtrace graph, whose confined child reads as
the window's engine does). Each file, made by tests/fixtures/hostile_pt2.py from a genuine program
of either layout, must end within a few seconds: the reader with its one answer frame (nothing
drawn, a reason) and within its stated memory bound; fxtrace with a sentence, never a crash. The
genuine programs still draw, so the bounds refuse only what they should.

  FXTRACE, FXVIEW_READER: the programs; argv: the hostile files' folder (OUTDIR/GENUINE/*.pt2,
  made by the hostile_pt2 fixture), then the genuine programs.
"""
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

# What fxview-reader may take on any file (docs/measurements.md): the genuine tinynet takes
# about 10 MB, the worst hostile file here about 100 MB.
READER_MEMORY_BOUND = 256 << 20
# A person waits this long at most for a hostile file's sentence (the window kills a reader at
# 10 s); a file that draws (30,000 nodes) may take what a real graph of its size takes.
SECONDS = {"refused": 10.0, "drawn": 30.0, "either": 30.0}


def reader_answer(out):
    """Whether the reader's one frame (FXVE, version, kind 1, length, then ProgramReading:
    cacheKey, drawn, graph, why) says it drew the program."""
    magic, _, kind, length = struct.unpack_from("<4sHHI", out)
    assert magic == b"FXVE" and kind == 1 and len(out) == 12 + length, "not one answer frame"
    (key_length,) = struct.unpack_from("<I", out, 12)
    return out[16 + key_length] != 0


# What each file may come to: refused with a sentence unless said here. Quadratic work is an
# attack on time, not on sense: those files may draw, but as fast as any other.
OUTCOMES = {"many_members": "drawn", "unnamed_nodes": "drawn"}


def main():
    fxtrace, reader = os.environ["FXTRACE"], os.environ["FXVIEW_READER"]
    outdir, *genuine = sys.argv[1:]
    failures = []
    files = []
    for source in map(Path, genuine):
        files += sorted((Path(outdir) / source.stem).glob("*.pt2"))
        if not source.is_file() or not files:
            sys.exit(f"{source} or its hostile files are missing: the fixtures were not made")
        # The genuine program draws: the bounds refuse only hostile files.
        result = subprocess.run([reader, str(source)], capture_output=True, timeout=60)
        if result.returncode != 0 or not reader_answer(result.stdout):
            failures.append(f"{source.name}: fxview-reader did not draw the genuine program: "
                            f"{result.stderr.decode(errors='replace')}")
    # One process per file, so that each file's peak memory is its own: the children's
    # ru_maxrss only grows, so it is read through a fresh Python each time.
    for path in files:
        probe = subprocess.run(
            [sys.executable, "-c", f"""
import resource, subprocess, sys, time
start = time.monotonic()
p = subprocess.run([{reader!r}, {str(path)!r}], capture_output=True, timeout=60)
seconds = time.monotonic() - start
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
sys.stdout.buffer.write(b"%d %f %d\\n" % (p.returncode, seconds, rss) + p.stdout)
"""], capture_output=True)
        head, _, answer = probe.stdout.partition(b"\n")
        code, seconds, rss = head.split()
        code, seconds, rss = int(code), float(seconds), int(rss)
        what = f"{path.parent.name}/{path.name}"
        print(f"{what}: reader exit {code} in {seconds:.2f} s, {rss >> 20} MB")
        outcome = OUTCOMES.get(path.stem, "refused")
        if code != 0:
            failures.append(f"{what}: fxview-reader exited {code}: {probe.stderr.decode()}")
        elif outcome != "either" and reader_answer(answer) != (outcome == "drawn"):
            failures.append(f"{what}: fxview-reader's answer is not '{outcome}'")
        if seconds > SECONDS[outcome]:
            failures.append(f"{what}: fxview-reader took {seconds:.1f} s")
        if rss > READER_MEMORY_BOUND:
            failures.append(f"{what}: fxview-reader took {rss >> 20} MB")
        # The engine's side: fxtrace graph reads it in its confined child.
        start = time.monotonic()
        result = subprocess.run([fxtrace, "graph", str(path)], capture_output=True, timeout=120)
        seconds = time.monotonic() - start
        err = result.stderr.decode(errors="replace").strip()
        print(f"{what}: fxtrace exit {result.returncode} in {seconds:.2f} s: {err[:300]}")
        if result.returncode == 0 and outcome == "refused":
            failures.append(f"{what}: fxtrace graph drew it")
        elif result.returncode != 0 and outcome == "drawn":
            failures.append(f"{what}: fxtrace graph refused it: {err}")
        elif result.returncode < 0 or "crashed" in err or "was killed" in err:
            failures.append(f"{what}: fxtrace graph's reader died: {err}")
        elif result.returncode != 0 and len(err.splitlines()) != 1:
            failures.append(f"{what}: fxtrace said more than one sentence: {err}")
        if seconds > SECONDS[outcome]:
            failures.append(f"{what}: fxtrace graph took {seconds:.1f} s")
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(files) * 2 - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
