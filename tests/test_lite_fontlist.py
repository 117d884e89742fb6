"""The JupyterLite site's hash chain accepts a regenerated matplotlib font list only if current.

lite/fontlist.py replaces one member of the site's matplotlib wheel (``make lite``);
tests/browser/test_lite.py checks the built site with ``fontlist.derived_problems``. Here that
check meets small constructed wheels: the honest one passes, and each way of tampering with
the list (or with anything else) is refused.
"""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lite"))
import bytecode
import fontlist

FONT_MANAGER = b"""
class FontManager:
    # Increment this version number whenever the font cache data format changes.
    __version__ = 330

    def __init__(self):
        self._version = self.__version__
"""
FONTS = {"matplotlib/mpl-data/fonts/ttf/DejaVuSans.ttf": b"ttf",
         "matplotlib/mpl-data/fonts/ttf/STIXGeneral.otf": b"otf",
         "matplotlib/mpl-data/fonts/ttf/LICENSE_DEJAVU": b"not a font",
         "matplotlib/mpl-data/fonts/afm/pagd8a.afm": b"afm",
         "matplotlib/mpl-data/fonts/pdfcorefonts/Courier.afm": b"afm"}


def _list(version=330, ttf=("fonts/ttf/DejaVuSans.ttf", "fonts/ttf/STIXGeneral.otf"),
          afm=("fonts/afm/pagd8a.afm", "fonts/pdfcorefonts/Courier.afm")) -> bytes:
    entry = {"name": "X", "style": "normal", "variant": "normal", "weight": 400,
             "stretch": "normal", "size": "scalable", "__class__": "FontEntry"}
    return json.dumps({"_version": version, "defaultFamily": {"ttf": "DejaVu Sans"},
                       "ttflist": [dict(entry, fname=f) for f in ttf],
                       "afmlist": [dict(entry, fname=f) for f in afm],
                       "__class__": "FontManager"}, indent=2).encode()


def _wheel(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(zipfile.ZipInfo(name, date_time=(2025, 6, 5, 3, 10, 8)), data)
    return out.getvalue()


STALE = {"matplotlib/__init__.py": b"", "matplotlib/font_manager.py": FONT_MANAGER,
         fontlist.MEMBER: _list(version=390, ttf=("/Library/Fonts/Arial.ttf",)), **FONTS,
         "matplotlib-3.8.4.dist-info/RECORD": b""}
ORIGINAL = _wheel(STALE)


def test_a_current_list_in_place_of_the_stale_one_is_accepted():
    derived = fontlist.replace_member(ORIGINAL, fontlist.MEMBER, _list())
    assert fontlist.derived_problems(ORIGINAL, derived) == []
    with zipfile.ZipFile(io.BytesIO(derived)) as zf:
        assert zf.namelist() == list(STALE)  # the member keeps its place
        assert zf.getinfo(fontlist.MEMBER).date_time == (2025, 6, 5, 3, 10, 8)
    # only the matplotlib wheel's check allows it: anywhere else a changed member is refused
    assert bytecode.derived_problems(ORIGINAL, derived, zipimport=False) == [
        f"{fontlist.MEMBER} differs from the original"]


def test_the_stale_list_itself_is_refused():
    problems = fontlist.derived_problems(ORIGINAL, ORIGINAL)
    assert any("_version 390 is not" in p for p in problems), problems


@pytest.mark.parametrize("tampered, says", [
    (_list(version=390), "_version 390 is not"),
    (_list(version="330"), "_version '330' is not"),
    (_list(ttf=("fonts/ttf/DejaVuSans.ttf", "fonts/ttf/STIXGeneral.otf",
                "fonts/ttf/Extra.ttf")), "Extra.ttf"),  # a font the wheel lacks
    (_list(ttf=("fonts/ttf/DejaVuSans.ttf",)), "missing: ['fonts/ttf/STIXGeneral.otf']"),
    (_list(ttf=("fonts/ttf/DejaVuSans.ttf", "fonts/ttf/DejaVuSans.ttf",
                "fonts/ttf/STIXGeneral.otf")), "twice: ['fonts/ttf/DejaVuSans.ttf']"),
    (_list(ttf=("/lib/python3.12/site-packages/matplotlib/mpl-data/fonts/ttf/DejaVuSans.ttf",
                "fonts/ttf/STIXGeneral.otf")), "missing: ['fonts/ttf/DejaVuSans.ttf']"),
    (_list(afm=("fonts/afm/pagd8a.afm",)), "afmlist is not"),
    (_list(ttf=("fonts/ttf/DejaVuSans.ttf", "fonts/ttf/STIXGeneral.otf",
                "fonts/ttf/LICENSE_DEJAVU")), "LICENSE_DEJAVU"),
    (b"{not json", "is not JSON"),
])
def test_a_tampered_list_is_refused(tampered, says):
    derived = fontlist.replace_member(ORIGINAL, fontlist.MEMBER, tampered)
    problems = fontlist.derived_problems(ORIGINAL, derived)
    assert any(says in p for p in problems), problems


def test_any_other_change_to_the_wheel_is_refused():
    current = fontlist.replace_member(ORIGINAL, fontlist.MEMBER, _list())
    changed = fontlist.replace_member(current, "matplotlib/mpl-data/fonts/ttf/DejaVuSans.ttf",
                                      b"another font")
    assert fontlist.derived_problems(ORIGINAL, changed) == [
        "matplotlib/mpl-data/fonts/ttf/DejaVuSans.ttf differs from the original"]
    reordered = _wheel({fontlist.MEMBER: _list(), **{k: v for k, v in STALE.items()
                                                    if k != fontlist.MEMBER}})
    assert "the original members are not all kept, first and in their order" in (
        fontlist.derived_problems(ORIGINAL, reordered))
    # a list made current by changing what font_manager.py wants is refused too
    bumped = fontlist.replace_member(
        fontlist.replace_member(ORIGINAL, "matplotlib/font_manager.py",
                                FONT_MANAGER.replace(b"330", b"390")),
        fontlist.MEMBER, _list(version=390))
    assert fontlist.derived_problems(ORIGINAL, bumped) == [
        "matplotlib/font_manager.py differs from the original"]
    assert fontlist.derived_problems(None, current) == [
        "no original to compare the derived matplotlib wheel with"]


def test_the_version_is_read_from_font_managers_class():
    assert fontlist.wanted_version(FONT_MANAGER) == 330
    assert fontlist.wanted_version(b"__version__ = 1\nclass Other:\n    __version__ = 2\n") is None
