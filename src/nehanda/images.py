"""Image files made into image parts a provider takes: read, known by their content, and
fitted under the provider's size limit.

``read_image(path, limit)`` is what ``--image``, ``@pic.png`` in a prompt and a pasted
path call; ``fitted_image(data, limit, name)`` serves bytes read elsewhere (Read, which
opens its file beneath the workspace). A file is an image when its bytes say so
(``types.image_type``), whatever its name. One over ``limit`` is downscaled with Pillow
when it is installed (the ``images`` extra; imported only then), else refused with its
size and the limit. Every refusal is one ``ImageRefused`` line.
"""

from __future__ import annotations

import io
from pathlib import Path

from nehanda.errors import ImageRefused
from nehanda.types import ImagePart, ImageType, image_type

SNIFF_BYTES = 12  # enough for every signature image_type knows
ATTEMPTS = 8  # smaller sizes tried before a downscale gives up


def sniff_file(path: Path) -> ImageType | None:
    """The image format of the file at ``path`` by its first bytes; ``None``: not an image
    (or unreadable), so a caller may treat it as text."""
    try:
        with path.open("rb") as file:
            return image_type(file.read(SNIFF_BYTES))
    except OSError:
        return None


def read_image(path: Path, limit: int, name: str | None = None) -> ImagePart:
    """The image at ``path`` as a part no larger than ``limit`` bytes; ``name`` is how the
    user wrote it (the path, by default)."""
    shown = name or str(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ImageRefused(f"cannot read the image {shown}: {error.strerror or error}") from None
    return fitted_image(data, limit, shown)


def fitted_image(data: bytes, limit: int, name: str) -> ImagePart:
    """``data`` as an image part no larger than ``limit`` bytes, downscaled if need be."""
    if image_type(data) is None:
        raise ImageRefused(f"{name} is not a PNG, JPEG, GIF or WebP image (by its content)")
    if len(data) <= limit:
        return ImagePart.of(data, name)
    return ImagePart.of(_downscaled(data, limit, name), name)


def _downscaled(data: bytes, limit: int, name: str) -> bytes:
    over = f"{name} is {_size(len(data))}, over the {_size(limit)} the provider takes"
    try:
        from PIL import Image
    except ImportError:
        raise ImageRefused(
            f"{over}; install Pillow (pip install 'nehanda[images]') to have it "
            "downscaled, or make it smaller"
        ) from None
    try:
        with Image.open(io.BytesIO(data)) as opened:
            form = opened.format or "PNG"
            image = (
                opened.convert("RGB")
                if form == "JPEG" and opened.mode not in ("RGB", "L")
                else opened
            )
            scale = (limit / len(data)) ** 0.5
            for _ in range(ATTEMPTS):
                size = (max(1, int(image.width * scale)), max(1, int(image.height * scale)))
                out = io.BytesIO()
                image.resize(size).save(out, format=form)
                if out.tell() <= limit:
                    return out.getvalue()
                scale *= 0.7
    except (OSError, ValueError, Image.DecompressionBombError) as error:
        raise ImageRefused(f"{over}, and it could not be downscaled: {error}") from None
    raise ImageRefused(f"{over}, and it stays larger however small it is made")


def _size(count: int) -> str:
    if count >= 1 << 20:
        return f"{count / (1 << 20):.1f} MiB"
    return f"{count / 1024:.0f} KiB" if count >= 1024 else f"{count} bytes"
