#!/usr/bin/env python3
"""Every committed study (examples/, validation/) validates against
docs/study.schema.json, the schema rejects a misspelled field, and `mcdose check`
accepts the same files: the schema, the parser and the examples agree.
Usage: study_schema.py MCDOSE SOURCE_DIR"""
import glob
import json
import os
import subprocess
import sys

import jsonschema

mcdose, src = sys.argv[1], sys.argv[2]
with open(os.path.join(src, "docs", "study.schema.json")) as f:
    schema = json.load(f)
jsonschema.Draft7Validator.check_schema(schema)
validator = jsonschema.Draft7Validator(schema)

studies = sorted(glob.glob(os.path.join(src, "examples", "*.json"))
                 + glob.glob(os.path.join(src, "validation", "*", "study.json"))
                 + glob.glob(os.path.join(src, "validation", "archer_tests", "*.json")))
# A build without MCPL refuses phase-space studies by design: those are checked only
# against the schema there.
has_mcpl = json.loads(subprocess.run([mcdose, "info", "--json"], capture_output=True,
                                     text=True).stdout or "{}").get("mcpl", False)
failures = []
for path in studies:
    with open(path) as f:
        study = json.load(f)
    errors = sorted(validator.iter_errors(study), key=lambda e: list(e.path))
    for e in errors:
        failures.append(f"{path}: /{'/'.join(map(str, e.path))}: {e.message}")
    if not has_mcpl and "phase_space" in json.dumps(study):
        continue
    r = subprocess.run([mcdose, "check", path], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"{path}: mcdose check failed: {r.stdout}{r.stderr}")
if len(studies) < 5:
    failures.append(f"expected the committed studies, found only {studies}")

# A misspelled physics option is an error for both the schema and the parser.
with open(studies[0]) as f:
    bad = json.load(f)
bad.setdefault("physics", {})["electron_cutof_MeV"] = 0.1
if validator.is_valid(bad):
    failures.append("schema accepted the misspelled field 'electron_cutof_MeV'")



def schema_properties(node, found):
    """Every property name the schema declares, at any depth."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                found.update(value)
            schema_properties(value, found)
    elif isinstance(node, list):
        for value in node:
            schema_properties(value, found)
    return found


# Every field of the reference's field tables (| field | type | ...) is in the schema:
# a field added to the parser and its docs but not to the schema fails here.
declared = schema_properties(schema, set())
with open(os.path.join(src, "docs", "study-reference.md")) as f:
    in_fields = False
    for line in f:
        if not line.startswith("|"):
            in_fields = False
        elif line.startswith("| field |"):
            in_fields = True
        elif in_fields and line.startswith("| `"):
            field = line.split("`")[1].split(".")[-1]
            if field not in declared:
                failures.append(f"docs/study-reference.md documents '{field}', "
                                "docs/study.schema.json does not declare it")

for line in failures:
    print(line)
print(f"{len(studies)} studies checked, {len(failures)} problems")
sys.exit(1 if failures else 0)
