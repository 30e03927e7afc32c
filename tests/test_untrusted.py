"""Files from others: a model file (a gzipped tar with a manifest) that holds links, paths outside
the archive, special files, oversized members or a compression bomb, names a foreign class in its
config, or holds a pickle is refused with one :class:`ModelFileError` line before anything of it
is extracted or run; a model folder read through a link is refused; and no loading path of the
project unpickles (an AST scan). What would fail: extracting with tarfile's defaults (links and
``..`` are followed), instantiating a manifest's ``_target_`` unchecked (``os.system``),
``torch.load`` without ``weights_only=True``, a new ``pickle.load`` anywhere."""

from __future__ import annotations

import ast
import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from conftest import PROJECT

from boilerbench.configs import build, extractor_config
from boilerbench.experiments import model_file
from boilerbench.experiments.model_cache import extractor_version
from boilerbench.experiments.model_file import ModelFileError, load_model_file, save_model_file
from boilerbench.extractors.persistence import regular_file


def manifest_for(name: str, **config_overrides) -> dict:
    """A manifest that matches the running code for the extractor config ``name``."""
    config = {**extractor_config(name), **config_overrides}
    extractor = build(config)
    return {
        "format": model_file.FORMAT,
        "extractor": name,
        "config": config,
        "code_version": extractor_version(extractor),
        "module": type(extractor).__module__,
        "requires": model_file._required(extractor),
        "versions": {},
    }


def write_tar(path: Path, manifest: dict, *members: tuple[tarfile.TarInfo, bytes | None]) -> Path:
    """A model file holding ``manifest`` and ``members`` (TarInfo, data); data None writes the
    header alone (a member whose declared size is never stored)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        data = json.dumps(manifest).encode()
        info = tarfile.TarInfo(model_file.MANIFEST)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        for member, content in members:
            if content is None:
                tar.fileobj.write(member.tobuf(tarfile.GNU_FORMAT))  # type: ignore[union-attr]
            else:
                tar.addfile(member, io.BytesIO(content))
    path.write_bytes(gzip.compress(raw.getvalue()))
    return path


def member(name: str, kind: bytes = tarfile.REGTYPE, size: int = 0, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.size, info.linkname = kind, size, link
    return info


UNSAFE = {
    "symlink": ((member("model/w.pt", tarfile.SYMTYPE, link="/etc/passwd"), b""), "holds a link"),
    "hardlink": ((member("model/w.pt", tarfile.LNKTYPE, link="manifest.json"), b""), "holds a link"),
    "absolute": ((member("/tmp/boilerbench-evil", size=4), b"evil"), "outside the archive"),
    "dotdot": ((member("model/../../evil", size=4), b"evil"), "outside the archive"),
    "fifo": ((member("model/pipe", tarfile.FIFOTYPE), b""), "special file"),
    "device": ((member("model/dev", tarfile.CHRTYPE), b""), "special file"),
    # a header that declares a terabyte: refused at the header, nothing inflated
    "declared_huge": ((member("model/w.pt", size=1 << 40), None), "over the"),
}


@pytest.mark.parametrize("case", sorted(UNSAFE))
def test_unsafe_members_are_refused_with_one_line(case, tmp_path):
    entry, phrase = UNSAFE[case]
    path = write_tar(tmp_path / "evil.model", manifest_for("bte"), entry)
    with pytest.raises(ModelFileError) as refused:
        load_model_file(path)
    assert phrase in str(refused.value) and "\n" not in str(refused.value)
    assert not Path("/tmp/boilerbench-evil").exists() and not (tmp_path.parent / "evil").exists()


def test_a_gzip_bomb_is_refused_before_it_is_inflated(tmp_path, monkeypatch):
    """200 MB of zeros in 200 KB: over the (lowered) member and total limits, refused at the headers."""
    zeros = 200_000_000
    monkeypatch.setattr(model_file, "MAX_MEMBER_BYTES", zeros - 1)
    bomb = write_tar(tmp_path / "bomb.model", manifest_for("bte"), (member("model/w.pt", size=zeros), bytes(zeros)))
    assert bomb.stat().st_size < 1_000_000
    with pytest.raises(ModelFileError, match="over the 199,999,999 limit"):
        load_model_file(bomb)
    monkeypatch.setattr(model_file, "MAX_MEMBER_BYTES", 1 << 30)
    monkeypatch.setattr(model_file, "MAX_TOTAL_BYTES", 1_000_000)
    many = [(member(f"model/f{i}", size=400_000), bytes(400_000)) for i in range(3)]
    with pytest.raises(ModelFileError, match="compression bomb"):
        load_model_file(write_tar(tmp_path / "many.model", manifest_for("bte"), *many))


def test_a_foreign_target_is_never_instantiated(tmp_path):
    marker = tmp_path / "ran"
    manifest = manifest_for("bte")
    manifest["config"] = {"_target_": "builtins.open", "file": str(marker), "mode": "w"}
    with pytest.raises(ModelFileError, match="builtins.open, which is no extractor of this project"):
        load_model_file(write_tar(tmp_path / "foreign.model", manifest))
    nested = manifest_for("majority_vote")
    nested["config"]["members"] = [{"_target_": "os.system", "command": f"touch {marker}"}]
    with pytest.raises(ModelFileError, match="os.system"):
        load_model_file(write_tar(tmp_path / "nested.model", nested))
    assert not marker.exists()


def test_a_pickled_model_is_refused(tmp_path):
    """The stack's scikit-learn backend saves its trees with pickle: such a model file is refused."""
    pytest.importorskip("sklearn")
    manifest = manifest_for("stack", backend="sklearn")
    tree = (member("model/trees.pkl", size=9), b"cos\nsystem")
    with pytest.raises(ModelFileError, match="pickle, which runs code"):
        load_model_file(write_tar(tmp_path / "pickled.model", manifest, tree))


def test_a_model_that_does_not_load_is_one_line(tmp_path):
    path = write_tar(tmp_path / "crf.model", manifest_for("crf"), (member("model/crf.json", size=5), b"{cut "))
    with pytest.raises(ModelFileError, match="its model does not load") as refused:
        load_model_file(path)
    assert "\n" not in str(refused.value)


def test_a_good_model_file_still_loads(tmp_path):
    extractor = build(extractor_config("bte"))
    path = tmp_path / "bte.model"
    save_model_file(extractor, path, "bte", extractor_config("bte"), "none", {})
    loaded, manifest = load_model_file(path)
    assert type(loaded) is type(extractor) and manifest["extractor"] == "bte"


def test_cli_refuses_an_unsafe_model_file_with_one_line_and_exit_2(tmp_path):
    path = write_tar(tmp_path / "evil.model", manifest_for("bte"), UNSAFE["dotdot"][0])
    page = tmp_path / "page.html"
    page.write_text("<p>hello</p>")
    done = subprocess.run(
        [sys.executable, "-m", "boilerbench", "extract", "--model", str(path), str(page)],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "outside the archive" in lines[0], done.stderr


def test_model_folder_files_are_read_only_as_regular_files(tmp_path):
    real = tmp_path / "w.pt"
    real.write_bytes(b"weights")
    assert regular_file(real) == real
    (tmp_path / "sym.pt").symlink_to(real)
    os.link(real, tmp_path / "hard.pt")
    os.mkfifo(tmp_path / "fifo.pt")
    for name, phrase in (("sym.pt", "symbolic link"), ("hard.pt", "hard link"), ("fifo.pt", "not a regular file")):
        with pytest.raises(ValueError, match=phrase):
            regular_file(tmp_path / name)


# --- nothing is unpickled -----------------------------------------------------------------------

#: Calls that run pickled code when they load: (module alias, function) pairs.
UNPICKLING = {
    ("pickle", "load"),
    ("pickle", "loads"),
    ("pickle", "Unpickler"),
    ("cPickle", "load"),
    ("dill", "load"),
    ("dill", "loads"),
    ("cloudpickle", "load"),
    ("cloudpickle", "loads"),
    ("joblib", "load"),
    ("pd", "read_pickle"),
    ("pandas", "read_pickle"),
    ("shelve", "open"),
    ("marshal", "loads"),
    ("yaml", "unsafe_load"),
}
#: The one unpickling call the project keeps, and why it is safe: the stack's scikit-learn trees
#: (``backend=sklearn``) are read only from the user's own model cache; a model file from others
#: with that backend is refused (``Stack.loads_pickle``, test_a_pickled_model_is_refused).
ALLOWED = {("boilerbench/extractors/stack/model.py", "pickle.loads")}


def _constant(node: ast.expr | None, value: bool) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def unsafe_calls(path: Path) -> list[str]:
    """``path``'s calls that may unpickle: the names above, ``torch.load`` without
    ``weights_only=True``, ``np.load`` with ``allow_pickle=True``, ``yaml.load`` without a safe loader."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner = node.func.value.id if isinstance(node.func.value, ast.Name) else ""
        name = f"{owner}.{node.func.attr}"
        keywords = {k.arg: k.value for k in node.keywords}
        if (owner, node.func.attr) in UNPICKLING:
            found.append(name)
        elif name == "torch.load" and not _constant(keywords.get("weights_only"), True):
            found.append(name)
        elif name in ("np.load", "numpy.load") and "allow_pickle" in keywords:
            if not _constant(keywords["allow_pickle"], False):
                found.append(f"{name}(allow_pickle=...)")
        elif name == "yaml.load" and "Safe" not in ast.unparse(keywords.get("Loader", ast.Constant(""))):
            found.append(name)
    return found


def test_no_loading_path_unpickles():
    sources = [*sorted((PROJECT / "boilerbench").rglob("*.py")), *sorted((PROJECT / "reports").rglob("*.py"))]
    sources.append(PROJECT / "run.py")
    found = {(str(path.relative_to(PROJECT)), call) for path in sources for call in unsafe_calls(path)}
    assert found == ALLOWED
    from boilerbench.extractors.base import tags
    from boilerbench.extractors.stack import Stack

    assert tags(Stack(backend="sklearn", features="blocks")).loads_pickle
    assert not tags(Stack(backend="lightgbm", features="blocks")).loads_pickle


def test_the_scan_finds_each_kind_of_unpickling(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import pickle, torch, numpy as np, joblib, yaml\n"
        "pickle.loads(b'')\ntorch.load('w.pt')\ntorch.load('w.pt', weights_only=True)\n"
        "np.load('a.npy', allow_pickle=True)\nnp.load('a.npy')\njoblib.load('m')\nyaml.load(s)\n"
        "yaml.load(s, Loader=yaml.SafeLoader)\n"
    )
    assert unsafe_calls(planted) == [
        "pickle.loads",
        "torch.load",
        "np.load(allow_pickle=...)",
        "joblib.load",
        "yaml.load",
    ]
