#!/usr/bin/env python3
"""scripts/space_doc.py: a space file with Extends and Overrides read as evotune reads it. With an evotune binary
(the first argument), every space of search_spaces/ that extends another resolves to the document `evotune
convert` writes for it, and each malformed file below fails with evotune's own message."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import space_doc  # noqa: E402

EVOTUNE = None

BASE = {
    "Name": "base",
    "ConfigurationSpace": {"TuningParameters": [{"Name": "BLOCK", "Type": "int", "Values": [64, 128]}]},
    "KernelSpecification": {
        "KernelFile": "k.cu",
        "CompilerOptions": ["-std=c++17"],
        "Arguments": [
            {"Name": "x", "Type": "half", "MemoryType": "Vector", "Size": "N"},
            {"Name": "y", "Type": "half", "MemoryType": "Vector", "Size": "N"},
        ],
    },
    "Validation": {"AbsoluteTolerance": 0.01},
    "Seeds": [{"BLOCK": 64}, {"BLOCK": 128}],
}


class Folder:
    """A temporary folder of JSON files: write(name, document) -> its path."""

    def __init__(self):
        self.temporary = tempfile.TemporaryDirectory()
        self.path = self.temporary.name

    def write(self, name, document):
        path = os.path.join(self.path, name)
        with open(path, "w") as f:
            f.write(document if isinstance(document, str) else json.dumps(document))
        return path


class Resolution(unittest.TestCase):
    def setUp(self):
        self.folder = Folder()
        self.folder.write("base.json", BASE)

    def tearDown(self):
        self.folder.temporary.cleanup()

    def test_members_replace_the_bases_and_overrides_reach_into_lists(self):
        path = self.folder.write("twin.json", {
            "Extends": "base.json", "Name": "twin", "Extra": 1,
            "Overrides": {"KernelSpecification.Arguments(y).Type": "bfloat16",
                          "KernelSpecification.CompilerOptions": ["-std=c++17", "-DBF16=1"],
                          "Seeds[1].BLOCK": 64, "Validation.AbsoluteTolerance": 0.04}})
        twin = space_doc.load(path)
        self.assertEqual(list(twin), list(BASE) + ["Extra"], "the base's order, a new member after it")
        self.assertEqual(twin["Name"], "twin")
        self.assertEqual([a["Type"] for a in twin["KernelSpecification"]["Arguments"]], ["half", "bfloat16"])
        self.assertEqual(twin["KernelSpecification"]["CompilerOptions"], ["-std=c++17", "-DBF16=1"])
        self.assertEqual(twin["Seeds"], [{"BLOCK": 64}, {"BLOCK": 64}])
        self.assertEqual(twin["Validation"], {"AbsoluteTolerance": 0.04})
        self.assertNotIn("Extends", twin)
        self.assertNotIn("Overrides", twin)
        self.assertEqual(space_doc.load(os.path.join(self.folder.path, "base.json")), BASE, "the base unchanged")

    def test_a_chain_of_bases_resolves_from_the_first(self):
        self.folder.write("middle.json", {"Extends": "base.json", "Name": "middle",
                                          "Overrides": {"Validation.AbsoluteTolerance": 0.02}})
        path = self.folder.write("last.json", {"Extends": "middle.json", "Name": "last",
                                               "Overrides": {"KernelSpecification.Arguments(x).Type": "float"}})
        last = space_doc.load(path)
        self.assertEqual((last["Name"], last["Validation"]["AbsoluteTolerance"]), ("last", 0.02))
        self.assertEqual(last["KernelSpecification"]["Arguments"][0]["Type"], "float")

    def test_a_space_without_extends_is_read_as_it_is(self):
        self.assertEqual(space_doc.load(os.path.join(self.folder.path, "base.json")), BASE)


# Malformed files: name -> (document, the message after "FILE: "; {base} is base.json's path).
BAD = {
    "cycle_a.json": ({"Extends": "cycle_b.json", "Name": "a"},
                     "cycle_b.json: Extends: a cycle (cycle_a.json -> cycle_b.json -> cycle_a.json)"),
    "outside.json": ({"Extends": "../base.json", "Name": "o"},
                     "outside.json: Extends: expected the file name of a space in the same folder (the base's "
                     "relative paths are read from there), got \"../base.json\""),
    "not_a_name.json": ({"Extends": 3, "Name": "o"},
                        "not_a_name.json: Extends: expected the file name of a space in the same folder (the base's "
                        "relative paths are read from there), got 3"),
    "missing.json": ({"Extends": "nothing.json", "Name": "m"}, "nothing.json: cannot read the file (named by Extends)"),
    "no_field.json": ({"Extends": "base.json", "Name": "n", "Overrides": {"Validation.Nope": 1}},
                      "no_field.json: Overrides.Validation.Nope: the extended space has no field Validation.Nope"),
    "no_element.json": ({"Extends": "base.json", "Name": "n",
                         "Overrides": {"KernelSpecification.Arguments(z).Type": "float"}},
                        "no_element.json: Overrides.KernelSpecification.Arguments(z).Type: "
                        "KernelSpecification.Arguments has no element named 'z'"),
    "no_index.json": ({"Extends": "base.json", "Name": "n", "Overrides": {"Seeds[2].BLOCK": 64}},
                      "no_index.json: Overrides.Seeds[2].BLOCK: Seeds has 2 elements, no [2]"),
    "not_a_list.json": ({"Extends": "base.json", "Name": "n", "Overrides": {"Validation(x).Type": 1}},
                        "not_a_list.json: Overrides.Validation(x).Type: Validation is not a list"),
    "bad_path.json": ({"Extends": "base.json", "Name": "n", "Overrides": {"Validation..Type": 1}},
                      "bad_path.json: Overrides.Validation..Type: '': expected Field, Field(Name) or Field[index]"),
    "no_name.json": ({"Extends": "base.json"},
                     "no_name.json: Extends: an extending space needs a Name of its own (its results are stored under "
                     "it), not \"base\""),
    "same_name.json": ({"Extends": "base.json", "Name": "base"},
                       "same_name.json: Extends: an extending space needs a Name of its own (its results are stored "
                       "under it), not \"base\""),
    "bad_overrides.json": ({"Extends": "base.json", "Name": "n", "Overrides": [1]},
                           "bad_overrides.json: Overrides: expected an object of field paths and values"),
}


class Errors(unittest.TestCase):
    def test_each_malformed_file_fails_naming_its_field(self):
        folder = Folder()
        try:
            folder.write("base.json", BASE)
            folder.write("cycle_b.json", {"Extends": "cycle_a.json", "Name": "b"})
            for name, (document, message) in BAD.items():
                path = folder.write(name, document)
                with self.assertRaises(space_doc.SpaceDocError, msg=name) as caught:
                    space_doc.load(path)
                self.assertEqual(str(caught.exception), os.path.join(folder.path, message), name)
                if EVOTUNE:  # evotune's reader says the same
                    done = subprocess.run([EVOTUNE, "check", path], capture_output=True, text=True)
                    self.assertEqual(done.returncode, 1, name)
                    self.assertEqual(done.stderr.strip(), "evotune: error: " + os.path.join(folder.path, message),
                                     name)
        finally:
            folder.temporary.cleanup()


class TheRepositorysSpaces(unittest.TestCase):
    def test_every_extending_space_reads_as_evotune_reads_it(self):
        if not EVOTUNE:
            self.skipTest("no evotune binary given")
        folder = os.path.join(ROOT, "search_spaces")
        extending = [name for name in sorted(os.listdir(folder)) if name.endswith(".json")
                     and "Extends" in space_doc.read_json(os.path.join(folder, name))]
        self.assertGreaterEqual(len(extending), 7, extending)
        with tempfile.TemporaryDirectory() as out:
            for name in extending:
                path = os.path.join(folder, name)
                written = os.path.join(out, name)
                done = subprocess.run([EVOTUNE, "convert", path, "-o", written], capture_output=True, text=True)
                self.assertEqual(done.returncode, 0, done.stderr)
                converted = space_doc.read_json(written)
                for section in ("KernelSpecification", "Reference", "DerivedInputs"):  # relative to `out` there
                    if "KernelFile" in converted.get(section, {}):
                        converted[section]["KernelFile"] = os.path.relpath(
                            os.path.normpath(os.path.join(out, converted[section]["KernelFile"])), folder)
                resolved = space_doc.load(path)
                self.assertEqual(converted, resolved, name)
                self.assertEqual(list(converted), list(resolved), name)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        EVOTUNE = os.path.abspath(sys.argv.pop(1))
    unittest.main()
