"""BENCHMARKS.md's sections: one per machine kind (written by report.py) and one per peer
comparison (vs_openvino.py, vs_torch.py), each between `<!-- machine: ... -->` markers. A writer
replaces its own section, keeps every other one and rewrites the index of the file's head."""

import os
import re
import sys

BENCHMARKS_MD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "BENCHMARKS.md")

SECTION_START = "<!-- machine: {slug}; date: {date}; commit: {commit} -->"
SECTION_RE = re.compile(r"<!-- machine: (?P<slug>[^;]+); date: (?P<date>[^;]*); "
                        r"commit: (?P<commit>[^ ]*) -->\n(?P<body>.*?)"
                        r"<!-- end machine: (?P=slug) -->\n", re.S)


def anchor(title):
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def section(slug, date, commit, body):
    """A section's text: `body` (starting with its `## ` title) between the markers."""
    return (SECTION_START.format(slug=slug, date=date, commit=commit) + "\n" + body.rstrip("\n")
            + "\n" + f"<!-- end machine: {slug} -->\n")


# A machine section's bf16 / int8 part (report.py): `<!-- dt: bf16; date: ...; commit: ... -->`
# ... `<!-- end dt: bf16 -->`, after the section's f32 part; a run replaces only the parts of the
# data types it ran.
PART_RE = re.compile(r"\n*<!-- dt: (?P<dt>[^;]+); date: (?P<date>[^;]*); commit: (?P<commit>[^ ]*) -->\n"
                     r"(?P<body>.*?)<!-- end dt: (?P=dt) -->\n?", re.S)


def part(dt, date, commit, body):
    """A bf16 / int8 part's text: `body` between its markers."""
    return (f"<!-- dt: {dt}; date: {date}; commit: {commit} -->\n" + body.rstrip("\n") + "\n"
            + f"<!-- end dt: {dt} -->\n")


def old_section(path, slug):
    """(date, commit, body) of section `slug` of the file at `path`, or None."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        for m in SECTION_RE.finditer(f.read()):
            if m["slug"] == slug:
                return m["date"], m["commit"], m["body"]
    return None


def split_parts(body):
    """A section body's f32 part (the text outside the parts) and its parts ({dt: text})."""
    parts = {m["dt"]: part(m["dt"], m["date"], m["commit"], m["body"])
             for m in PART_RE.finditer(body)}
    return PART_RE.sub("\n", body).rstrip("\n") + "\n", parts


def join_parts(main, parts, order):
    """`main` followed by `parts` in `order` (a blank line between)."""
    return main.rstrip("\n") + "".join("\n\n" + parts[dt].rstrip("\n")
                                       for dt in order if dt in parts) + "\n"


def merge_sections(path, slug, text, head):
    """The file with `text` as section `slug` (replacing it, or added) and every other section
    as it was; `head` (title, `{index}`, method) is rewritten."""
    sections = {}
    if os.path.exists(path):
        with open(path) as f:
            for m in SECTION_RE.finditer(f.read()):
                sections[m["slug"]] = m.group(0)
        if not sections:
            print(f"sections.py: {path} has no sections (`<!-- machine: ... -->`): only "
                  "this run's is kept", file=sys.stderr)
    sections[slug] = text
    index = []
    for t in sections.values():
        m = SECTION_RE.match(t)
        title = next((ln[3:] for ln in m["body"].splitlines() if ln.startswith("## ")), m["slug"])
        index.append(f"- [{title}](#{anchor(title)}): {m['date']}, commit {m['commit']}")
    return head.replace("{index}", "\n".join(index)) + "\n" + "\n".join(sections.values())


def replace_section(slug, date, commit, body, path=BENCHMARKS_MD):
    """Writes `body` as section `slug` of BENCHMARKS.md, keeping its head (with the index
    rewritten) and every other section."""
    with open(path) as f:
        old = f.read()
    first = SECTION_RE.search(old)
    head = old[:first.start()] if first else old
    lines = head.rstrip("\n").split("\n")
    index = [i for i, ln in enumerate(lines) if ln.startswith("- [") and "](#" in ln]
    if index:
        lines[index[0]:index[-1] + 1] = ["{index}"]
    else:
        lines.append("\n{index}")
    text = merge_sections(path, slug, section(slug, date, commit, body), "\n".join(lines) + "\n")
    with open(path, "w") as f:
        f.write(text)


def cpu_model():
    """The CPU's model name (/proc/cpuinfo), for a section's text."""
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("model name"):
                    return ln.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def write_peer_section(slug, title, script, md_name, lines, commit):
    """A peer comparison's table (`lines`: its markdown file without the title) as section
    `slug` of BENCHMARKS.md, titled with the CPU it ran on."""
    body = [f"## {title} ({cpu_model()}, {os.cpu_count()} CPUs)", "",
            f"*Written by `benchmarks/{script}` with `benchmarks/{md_name}`.*", ""] + lines
    date = next((ln.split("Date: ", 1)[1].split(";")[0] for ln in lines if "Date: " in ln), "")
    replace_section(slug, date, commit, "\n".join(body))
