"""Writes the seed corpus of the package_and_validate fuzz target.

Each seed is one choice byte (0 = .json, 1 = .zip) followed by a package.
Run: python3 seeds/make_seeds.py corpus/package_and_validate
"""
import io, struct, sys, zipfile, zlib, pathlib

MANIFEST = b'{"name":"fx","version":"1.0.0","_meta":{"com.desktopaicompanion":{"apiVersion":1,"kind":"declarative","slug":"fx"}},"tools":[]}'

def png(w, h):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\0" + b"\x80" * (w * 4) for _ in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))

def zipped(entries, method=zipfile.ZIP_DEFLATED):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as z:
        for name, data in entries:
            z.writestr(name, data)
    return out.getvalue()

seeds = {
    "json": b"\0" + MANIFEST,
    "zip_manifest": b"\1" + zipped([("manifest.json", MANIFEST)]),
    "zip_stored": b"\1" + zipped([("manifest.json", MANIFEST), ("license", b"MIT")], zipfile.ZIP_STORED),
    "zip_full": b"\1" + zipped([("manifest.json", MANIFEST), ("icon.png", png(2, 2)),
                                ("readme.md", b"# fx"), ("license.txt", b"MIT")]),
    "zip_bad_name": b"\1" + zipped([("manifest.json", MANIFEST), ("docs/readme.md", b"x")]),
}
target = pathlib.Path(sys.argv[1])
target.mkdir(parents=True, exist_ok=True)
for name, data in seeds.items():
    (target / name).write_bytes(data)
