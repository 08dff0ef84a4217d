#!/usr/bin/env python3
"""scenes/scene.schema.json against the scenes: every native scene in scenes/ validates, and the corpus cases a
schema can catch (wrong types, missing or unknown keys, out-of-range values) fail it."""
import glob, json, os, sys
import jsonschema

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
schema = json.load(open(os.path.join(root, "scenes", "scene.schema.json")))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad = 0
native = [f for f in sorted(glob.glob(os.path.join(root, "scenes", "*.json"))) if not f.endswith("schema.json")]
for f in native:
    errs = list(v.iter_errors(json.load(open(f))))
    if errs:
        bad += 1
        print(f"FAIL {f}: {errs[0].message} at {list(errs[0].absolute_path)}")
rejected = 0
prefixes = ("type-", "missing-", "extra-", "size-", "camera-fov", "mat-", "env-and", "ref-unknown-material-type",
            "ref-unknown-object-type", "ref-unknown-preset", "root-array", "ref-from-file")
cases = [f for f in sorted(glob.glob(os.path.join(root, "tests", "bad_input", "*.json")))
         if os.path.basename(f)[3:].startswith(prefixes) and "pixels-huge" not in f and "spp-huge" not in f]
for f in cases:
    if v.is_valid(json.load(open(f))):
        bad += 1
        print(f"FAIL {f}: valid against the schema, but the loader rejects it")
    else:
        rejected += 1
print(f"{len(native)} scenes valid, {rejected} of {len(cases)} corpus cases rejected by the schema")
sys.exit(1 if bad or len(native) < 5 or rejected < 30 else 0)
