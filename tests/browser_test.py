#!/usr/bin/env python3
"""Browser test (CTest): the HTML report and plan SVGs open in headless Chromium.

Checks that the report renders its charts with no script errors and that screenshots of the
report, of the SVG of MiniMalloc's A (154 buffers) and of a 100,000-buffer generated plan are
not blank. Prints the wall time of each Chromium run (browser start-up included). Fails, never
skips, when Chromium is missing: scripts/setup.sh installs it.
Usage: browser_test.py MEMPLAN_BINARY SOURCE_DIR WORK_DIR
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("FAIL: chromium is not installed (scripts/setup.sh installs the 'chromium' package)")


def run_browser(args, url):
    with tempfile.TemporaryDirectory() as profile:
        t0 = time.time()
        out = subprocess.run([chromium()] + FLAGS + ["--user-data-dir=" + profile] + args + [url],
                             capture_output=True, text=True, timeout=120)
        return out, time.time() - t0


def non_white_fraction(png_path):
    """Decodes an 8-bit RGB/RGBA PNG with the standard library and counts non-white pixels."""
    data = open(png_path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), "unexpected PNG format"
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    coloured = 0
    for row in range(height):
        f = raw[row * (stride + 1)]
        line = bytearray(raw[row * (stride + 1) + 1:(row + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, bpp):
            if line[x] < 235 or line[x + 1] < 235 or line[x + 2] < 235:
                coloured += 1
        prev = line
    return coloured / float(width * height)


def screenshot(path, size, name, failures):
    png = path + ".png"
    out, secs = run_browser(["--screenshot=" + png, "--window-size=" + size], "file://" + path)
    if not os.path.exists(png):
        failures.append(name + ": no screenshot (" + out.stderr[-300:] + ")")
        return
    frac = non_white_fraction(png)
    print(f"{name}: rendered in {secs:.2f} s (Chromium wall time incl. start-up), {frac:.1%} non-white")
    if frac < 0.01:
        failures.append(f"{name}: screenshot is blank ({frac:.2%} non-white)")
    if secs > 60:
        failures.append(f"{name}: took {secs:.1f} s")


def main():
    memplan, source, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    failures = []
    a = os.path.join(source, "benchmarks", "minimalloc", "A.1048576.csv")
    report = os.path.join(work, "report.html")
    subprocess.run([memplan, "report", a, "--generate", "dnn:3000:1", "--algos",
                    "greedy,first-fit,idealloc,tflite-gpu-greedy-by-size", "--time-limit", "2",
                    "-o", report], check=True)
    html = open(report).read()
    if re.search(r"https?://", html):
        failures.append("report.html refers to a URL (must be self-contained)")
    out, secs = run_browser(["--dump-dom", "--enable-logging=stderr", "--v=0"], "file://" + report)
    dom = out.stdout
    rendered = re.search(r'data-rendered="(\d+)"', dom)
    errors = re.search(r'data-errors="(\d+)"', dom)
    if not rendered or int(rendered.group(1)) < 4:
        failures.append("report: charts and placements did not render (data-rendered=%s)" % (rendered and rendered.group(1)))
    if not errors or errors.group(1) != "0":
        failures.append("report: script errors (data-errors=%s)" % (errors and errors.group(1)))
    console = [l for l in out.stderr.splitlines() if "CONSOLE" in l and ("Error" in l or "Uncaught" in l)]
    if console:
        failures.append("report: console errors: " + " | ".join(console[:3]))
    print(f"report: DOM loaded in {secs:.2f} s, {rendered and rendered.group(1)} SVG elements")
    screenshot(report, "1300,1800", "report", failures)

    svg_a = os.path.join(work, "A.svg")
    subprocess.run([memplan, "solve", a, "-a", "greedy", "--svg", svg_a], check=True, stdout=subprocess.DEVNULL)
    screenshot(svg_a, "1200,660", "A.svg (154 buffers)", failures)
    big = os.path.join(work, "big.csv")
    subprocess.run([memplan, "generate", "-n", "100000", "--seed", "3", "-o", big], check=True)
    svg_big = os.path.join(work, "big.svg")
    subprocess.run([memplan, "solve", big, "-a", "first-fit", "--svg", svg_big], check=True, stdout=subprocess.DEVNULL)
    screenshot(svg_big, "1200,660", "100,000-buffer SVG", failures)

    for f in failures:
        print("FAIL:", f)
    print(f"{4 - min(4, len(failures))} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
