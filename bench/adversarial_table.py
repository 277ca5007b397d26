#!/usr/bin/env python3
"""Prints the adversarial table of docs/reliability.md from a bench/adversarial.py
record, one row per corpus file: its description (from its header), verdict, worker restart and the good seed after.
Usage: python3 bench/adversarial_table.py bench/results/adversarial-h100.json
"""
import json, re, sys


def description(path):
    m = re.search(r'"description":\s*"([^"]*)"', open(path).read())
    text = re.sub(r"^adversarial: ", "", m.group(1)) if m else ""
    return text if len(text) <= 90 else text[:87] + "..."


def main():
    record = json.load(open(sys.argv[1]))
    print("| file | attack | verdict | worker restart (ms) | good seed after |")
    print("| --- | --- | --- | --- | --- |")
    for r in record["corpus"]:
        verdict = f"`{r['verdict']}`" + ("" if r["verdict"] == r["expected"] else f" (expected `{r['expected']}`)")
        if r.get("evalOptions"):
            verdict += " (with `" + " ".join(r["evalOptions"]) + "`)"
        restart = "-" if r.get("recoveryMs") is None else f"{r['recoveryMs']:.0f}"
        change = r.get("goodSeedGeomeanChange")
        good = r["goodSeedVerdictAfter"] + ("" if change is None else f", {100 * change:+.1f}%")
        print(f"| `{r['file']}` | {description('evaluator/adversarial/' + r['file'])} | {verdict} | {restart} | {good} |")


if __name__ == "__main__":
    main()
