"""Image files made fit to send: known by their content, downscaled under a provider's
limit with Pillow, refused in one line without it, and Pillow loaded only when needed."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from nehanda.errors import ImageRefused
from nehanda.images import fitted_image, read_image, sniff_file

PNG = Path(__file__).parent / "fixtures" / "images" / "red_2x2.png"


def noise_png(side: int) -> bytes:
    """A PNG that compresses badly, so that only fewer pixels make it smaller."""
    image = Image.frombytes("RGB", (side, side), os.urandom(side * side * 3))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def test_a_file_is_an_image_by_its_bytes_not_its_name(tmp_path: Path) -> None:
    (tmp_path / "notes.png").write_text("just text")
    (tmp_path / "picture.txt").write_bytes(PNG.read_bytes())
    assert sniff_file(tmp_path / "notes.png") is None
    assert sniff_file(tmp_path / "picture.txt") == "image/png"
    assert sniff_file(tmp_path / "missing") is None
    with pytest.raises(ImageRefused, match=r"^notes.png is not a PNG, JPEG, GIF or WebP image"):
        read_image(tmp_path / "notes.png", 1 << 20, "notes.png")
    assert read_image(tmp_path / "picture.txt", 1 << 20).data == PNG.read_bytes()


def test_a_missing_file_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ImageRefused, match=r"^cannot read the image .*gone.png: No such file"):
        read_image(tmp_path / "gone.png", 1 << 20)


def test_an_image_over_the_limit_is_downscaled_under_it() -> None:
    data = noise_png(400)
    limit = len(data) // 3
    image = fitted_image(data, limit, "big.png")
    assert image.media_type == "image/png" and image.data is not None
    assert len(image.data) <= limit
    with Image.open(io.BytesIO(image.data)) as smaller:
        assert smaller.width < 400 and smaller.width == smaller.height


def test_a_jpeg_is_downscaled_as_a_jpeg() -> None:
    out = io.BytesIO()
    Image.frombytes("RGB", (300, 300), os.urandom(300 * 300 * 3)).save(out, format="JPEG")
    image = fitted_image(out.getvalue(), len(out.getvalue()) // 2, "photo.jpg")
    assert image.media_type == "image/jpeg"


def in_fresh_python(script: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    found: dict[str, object] = json.loads(done.stdout)
    return found


def test_pillow_is_loaded_only_for_an_image_that_needs_it(tmp_path: Path) -> None:
    big = tmp_path / "big.png"
    big.write_bytes(noise_png(200))
    script = f"""
import json, sys
from pathlib import Path
from nehanda.images import read_image
read_image(Path({str(PNG)!r}), 1 << 20)
small = "PIL" in sys.modules
read_image(Path({str(big)!r}), 20_000)
print(json.dumps({{"small": small, "big": "PIL" in sys.modules}}))
"""
    assert in_fresh_python(script) == {"small": False, "big": True}


def test_without_pillow_a_large_image_is_refused_with_its_size_and_the_limit(
    tmp_path: Path,
) -> None:
    big = tmp_path / "big.png"
    big.write_bytes(noise_png(600))
    script = f"""
import json, sys
sys.modules["PIL"] = None  # as if Pillow were not installed
from pathlib import Path
from nehanda.errors import ImageRefused
from nehanda.images import read_image
try:
    read_image(Path({str(big)!r}), 100_000, "big.png")
except ImageRefused as refused:
    print(json.dumps({{"refused": str(refused)}}))
"""
    size = big.stat().st_size / (1 << 20)
    assert in_fresh_python(script) == {
        "refused": f"big.png is {size:.1f} MiB, over the 98 KiB the provider takes; install "
        "Pillow (pip install 'nehanda[images]') to have it downscaled, or make it smaller"
    }
