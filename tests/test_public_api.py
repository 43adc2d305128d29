"""The public API is what ``__all__`` says, as httpx checks its own: every package's ``__all__`` is
exactly its public namespace, every name in it resolves, and no sub-package reaches into another's
private modules (what one needs from another is exported on purpose)."""

import ast
import importlib
import inspect
import os
import pkgutil
import re
import types

import pytest

import har2client

PACKAGE = os.path.dirname(har2client.__file__)
PACKAGES = ["har2client"] + [f"har2client.{m.name}" for m in pkgutil.iter_modules([PACKAGE]) if m.ispkg]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_exactly_the_public_namespace(name):
    module = importlib.import_module(name)
    exported = module.__all__
    assert len(exported) == len(set(exported)), "a name is listed twice"
    for attr in exported:  # lazy names load here, and land in the namespace
        assert getattr(module, attr) is not None or attr.isupper(), f"{name}.{attr} does not resolve"
    public = {k for k, v in vars(module).items() if not k.startswith("_")
              and not (isinstance(v, types.ModuleType) and v.__name__.startswith(name + "."))}
    public |= {k for k in ("__version__",) if k in vars(module)}  # a dunder exported on purpose
    assert public == set(exported), (f"public but not in __all__: {sorted(public - set(exported))}; "
                                     f"in __all__ but not public: {sorted(set(exported) - public)}")


def private_reaches(path: str, source: str) -> list[str]:
    """The imports in ``path`` (a file of the package) of a sibling sub-package's private module; a
    sub-package may use its parent's private modules (``.._errors``), and its own."""
    rel = os.path.relpath(path, PACKAGE).split(os.sep)
    here = rel[:-1]
    found = []
    for node in ast.walk(ast.parse(source, path)):
        targets = []
        if isinstance(node, ast.ImportFrom) and node.module:
            base = here[:len(here) - node.level + 1] if node.level else None
            parts = (base + node.module.split(".")) if base is not None else node.module.split(".")[1:] \
                if node.module.startswith("har2client.") else None
            if parts is not None:
                targets.append(parts)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(".."):
            dots = len(node.value) - len(node.value.lstrip("."))  # a lazy export's module, as a string
            targets.append(here[:len(here) - dots + 1] + node.value[dots:].split("."))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and re.fullmatch(r"har2client(\.\w+)+(:\w+)?", node.value):  # an entry point, "module:function"
            targets.append(node.value.split(":")[0].split(".")[1:])
        for parts in targets:
            sibling = parts[:1] and here[:1] != parts[:1] and len(parts) > 1
            if sibling and any(p.startswith("_") for p in parts[1:]):
                found.append(f"{'/'.join(rel)}:{node.lineno}: imports {'.'.join(parts)}")
    return found


def test_no_sub_package_imports_another_ones_private_modules():
    problems = []
    for dirpath, _, files in os.walk(PACKAGE):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8") as fh:
                    problems += private_reaches(path, fh.read())
    assert not problems, "\n".join(problems)


def test_the_private_import_check_can_fail():
    path = os.path.join(PACKAGE, "grading", "_judge.py")
    assert private_reaches(path, "from ..tasks._task import Task\n")
    assert private_reaches(path, "x = {'Task': '..tasks._task'}\n")
    assert private_reaches(path, "register('build', 'har2client.api._world:start_grading_world')\n")
    assert not private_reaches(path, "from ..tasks import Task\nfrom .._errors import GradingError\n"
                                     "from ._result import NOT_RUN\n")


def test_the_error_tree_drawn_in_errors_docstring_is_the_real_one():
    from har2client import _errors

    drawn = set(re.findall(r"[├└]── (\w+)", _errors.__doc__))
    base = har2client.Har2ClientError
    real = {c.__name__ for c in vars(_errors).values() if isinstance(c, type) and issubclass(c, base) and c is not base}
    assert drawn == real
    assert all(getattr(_errors, n).__bases__ == (base,) for n in real)  # the drawing is one level deep


def undocumented() -> list[str]:
    """Every function and class a package exports, and their public methods and properties, without a
    docstring (a method that overrides a documented one keeps its contract and may go without)."""
    seen, missing = set(), []
    for name in PACKAGES:
        module = importlib.import_module(name)
        for attr in module.__all__:
            obj = getattr(module, attr)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)) or id(obj) in seen \
                    or not obj.__module__.startswith("har2client"):
                continue
            seen.add(id(obj))
            doc = (obj.__doc__ or "").strip()
            if not doc or (inspect.isclass(obj) and doc.startswith(obj.__name__ + "(")):  # a dataclass's default
                missing.append(f"{obj.__module__}.{obj.__qualname__}")
            if inspect.isclass(obj):
                for k, v in vars(obj).items():
                    fn = v.fget if isinstance(v, property) else v
                    if k.startswith("_") or not inspect.isfunction(fn) or (fn.__doc__ or "").strip():
                        continue
                    if not any(getattr(getattr(b, k, None), "__doc__", None) for b in obj.__mro__[1:]):
                        missing.append(f"{obj.__module__}.{obj.__qualname__}.{k}")
    return missing


def test_every_public_definition_has_a_docstring():
    assert undocumented() == []
