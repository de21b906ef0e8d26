"""What the Python benchmarks share: a command's median wall time as a whole process."""
import statistics
import subprocess
import time


def median_seconds(command, runs):
    """Runs `command` once to warm the page cache, then `runs` times; the median, in seconds."""
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)
