#!/usr/bin/env python3
"""Checks that every file path README.md, docs/*.md and bench/README.md cite exists in the tree, and every
#anchor of a link names a heading of its page.

A cited path is a backquoted token or a Markdown link target that looks like a path (has a slash or a known file
extension). Bare file names are looked up where the docs keep recorded results (bench/results/ and its folders).
Placeholders (<campaign>, *, ...) and paths that only exist once kevo has run (target/, mutations/<name>/, ~/, /tmp)
are skipped. Prints each missing path with the file and line that cites it; exits 1 if any is missing.
Usage: python3 tools/check-doc-paths.py   (from anywhere)
"""
import pathlib, re, sys

root = pathlib.Path(__file__).resolve().parent.parent
docs = [root / "README.md", root / "bench" / "README.md", *sorted((root / "docs").glob("*.md"))]
exts = (".md", ".cu", ".cuh", ".java", ".py", ".sh", ".yaml", ".json", ".txt", ".html", ".xml", ".sbatch", ".log")
# Where a name given relative to its context is looked for: a Layout row names folders inside evaluator/, config/...
search = [root, root / "bench" / "results", *[p for p in (root / "bench" / "results").iterdir() if p.is_dir()],
          root / "bench", root / "bench" / "experiments" / "probe", root / "evaluator", root / "evaluator" / "adversarial",
          root / "seeds", root / "config", root / "mutations", root / "src" / "main" / "java" / "dev" / "kevo",
          root / "src" / "main" / "dist"]
skip = re.compile(r"[<>*{}$ ]|\.\.\.|^(target|/tmp|/usr|/dev|~|\$|http|mutations/(?!default-h100|sample-h100))|^-|^/|^\.|NAME|DIR|ID\b")
# Files a campaign folder or an exported package holds once kevo has written them: named, never in the tree.
written = {"campaign.yaml", "baseline.cu", "champion.cu", "champion.json", "state.json", "confirmation.json",
           "events.jsonl", "report.html", "kevo_softmax.cu", "kevo_softmax.h", "kevo_softmax_plan.h", "example.cu",
           "example.py", "setup.py", "kevo-export.json", "kevo_softmax_torch.cpp", "repair.md",
           "kevo-export-backward.json", "train_check.py"}

def candidates(text):
    for m in re.finditer(r"`([^`\n]+)`", text):
        yield m.group(1)
    for m in re.finditer(r"\]\(([^)#\s]+)(#[^)]*)?\)", text):
        yield m.group(1)

def anchors(path):
    """GitHub's heading anchors: lower case, punctuation but '-' and '_' dropped, spaces as '-'."""
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.+)$", path.read_text(), re.M)}

missing = 0
for doc in docs:
    for n, line in enumerate(doc.read_text().splitlines(), 1):
        for target, anchor in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", line):
            page = (doc.parent / target) if target else doc
            if page.exists() and anchor not in anchors(page):
                print(f"{doc.relative_to(root)}:{n}: no heading for #{anchor} in {target or doc.name}")
                missing += 1
    for n, line in enumerate(doc.read_text().splitlines(), 1):
        for token in candidates(line):
            token = token.strip()
            if skip.search(token) or token in written or not ("/" in token or token.endswith(exts)):
                continue
            bases = [doc.parent] + search
            if not any((b / token).exists() for b in bases):
                print(f"{doc.relative_to(root)}:{n}: {token}")
                missing += 1
sys.exit(1 if missing else 0)
